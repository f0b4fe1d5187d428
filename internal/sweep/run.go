package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Runner runs one variant once and returns its results.
type Runner func(ctx context.Context, v Cell) (*results.Result, error)

// Options configure Run.
type Options struct {
	// Path is where the sweep file is written after every run (so nothing done is lost).
	Path string
	Run  Runner
	// Outputs are written each run's results once recorded, tagged with its variant's settings
	// (Tagged): InfluxDB. An output says what went wrong itself, and the sweep goes on.
	Outputs []output.Output
	// Progress receives one line per run.
	Progress io.Writer
	// Judge, when set, judges a variant's results once a run is added to them (the diagnosis, the
	// thresholds: internal/runner's judgement of runs merged). Crank's scripts are not Judge's:
	// they are Run's, on each run's own results before it is added, so they run once per run.
	Judge func(v Cell, r *results.Result)
}

// ErrInterrupted is returned when the context ended the sweep; the file holds the runs done.
var ErrInterrupted = errors.New("sweep interrupted")

// Run runs what is left of the sweep in f, in its ABBA order, writing f to opts.Path after each
// run. A cancelled context stops it between or during runs (the run under way is dropped) and it
// returns ErrInterrupted; a failed run stops it with that error. Either way f keeps every run
// recorded so far, and Run on the file read back resumes where it stopped.
func Run(ctx context.Context, f *File, opts Options) error {
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	order := Order(len(f.Variants), f.Iterations)
	for k := f.Done; k < len(order); k++ {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		i := order[k]
		v := f.Variants[i].Cell
		fmt.Fprintf(opts.Progress, "sweep run %d of %d: %s (round %d)\n", k+1, len(order), v.Name, k/len(f.Variants)+1)
		res, err := opts.Run(ctx, v)
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if err != nil {
			return fmt.Errorf("variant %s: %w", v.Name, err)
		}
		f.Add(i, res)
		if opts.Judge != nil {
			opts.Judge(v, f.Variants[i].Result)
		}
		if err := f.WriteFile(opts.Path); err != nil {
			return fmt.Errorf("writing %s: %w", opts.Path, err)
		}
		for _, o := range opts.Outputs {
			if o.Write(ctx, output.Run{Result: Tagged(v, res)}) != nil {
				fmt.Fprintf(opts.Progress, "sweep run %d of %d: kept in the sweep file only\n", k+1, len(order))
			}
		}
	}
	return nil
}

// Tagged is a run of a variant as the outputs get it: its variant is the variant's settings
// (influx.VariantOf: sorted name=value pairs), as a run with those --variable values would have.
func Tagged(v Cell, r *results.Result) *results.Result {
	tagged := *r
	tagged.Variant = map[string]string{}
	for _, st := range v.Settings {
		tagged.Variant[Axis{Key: st.Key}.Short()] = st.Value
	}
	return &tagged
}

// Resume checks that a sweep file read back is the sweep asked for: the same axes, in the same
// order, and iterations at least those already run. Axes may be left out (nil) to take the file's.
func (f *File) Resume(axes []Axis, iterations int) error {
	if axes != nil && !sameAxes(f.Axes, axes) {
		return fmt.Errorf("--resume: the file's matrix %v differs from the --matrix given %v", f.Axes, axes)
	}
	if iterations > 0 {
		if iterations*len(f.Variants) < f.Done {
			return fmt.Errorf("--resume: the file already has %d runs, more than --iterations %d", f.Done, iterations)
		}
		f.Iterations = iterations
	}
	return nil
}

func sameAxes(a, b []Axis) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || fmt.Sprint(a[i].Values) != fmt.Sprint(b[i].Values) {
			return false
		}
	}
	return true
}
