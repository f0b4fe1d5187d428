// Package output is where a run's results go, behind one small interface (k6's output.Output):
// the result JSON, a CSV row, the tables (with the terminal chart), InfluxDB, the comparison with
// earlier results. Each registers its name with a constructor; a command names the outputs it
// wants (New) and writes the results to each in turn, it does not wire them.
package output

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/termchart"
)

// Output takes a run's results. Write says what went wrong on Params.Stderr and returns it.
type Output interface {
	Write(ctx context.Context, r Run) error
}

// Run is what an output is given: the results and the services in scenario order.
type Run struct {
	Result *Result
	Order  []string
}

// Params configure an output; each reads the fields it needs.
type Params struct {
	Arg    string // the file or the address the output writes to
	Stdout io.Writer
	Stderr io.Writer
	Logger *slog.Logger
	Chart  *termchart.Options // the table's chart column and timelines (nil: none)
	Influx influx.Config
	// Written, when set, is told of each file an output wrote (crank's ledger of result files).
	Written func(path string)
}

// Constructor makes an output.
type Constructor func(p Params) (Output, error)

var registry = map[string]Constructor{}

// Register adds an output under name; a name registered twice is a bug.
func Register(name string, c Constructor) {
	if _, dup := registry[name]; dup {
		panic("output: " + name + " registered twice")
	}
	registry[name] = c
}

// New makes the output registered as name.
func New(name string, p Params) (Output, error) {
	c, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("no output %q; outputs: %v", name, Names())
	}
	if p.Stdout == nil {
		p.Stdout = io.Discard
	}
	if p.Stderr == nil {
		p.Stderr = io.Discard
	}
	if p.Written == nil {
		p.Written = func(string) {}
	}
	return c(p)
}

// Names are the outputs registered, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return slices.Clip(names)
}
