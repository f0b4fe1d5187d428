package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

// VariantCapacity is one variant's search in a capacity matrix's result file (read back by
// capacity.Read).
type VariantCapacity struct {
	capacity.Named
	Settings []sweep.Setting `json:"settings"`
}

// variant is a variant's search and prepared scenario.
type variant struct {
	v        sweep.Cell
	s        *search
	prepared *runner.Prepared
}

// runMatrix is crank capacity --matrix: every variant is resolved and checked before anything
// runs, then searched in turn (each with its own application), then their capacities are shown side
// by side, the first variant the baseline.
func (s *search) runMatrix(ctx context.Context, axes []sweep.Axis) int {
	c := s.c
	variants, err := s.matrixVariants(ctx, axes)
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank capacity: %v\n", err)
		return runner.ExitBadInput
	}
	if c.DryRun != "" {
		return s.matrixDryRun(ctx, variants)
	}
	ctl, err := c.Controller()
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank capacity: %v\n", err)
		return runner.ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	started := time.Now()
	var done []VariantCapacity
	code := runner.ExitOK
	for i, cv := range variants {
		fmt.Fprintf(c.Stderr, "capacity: variant %d of %d: %s\n", i+1, len(variants), cv.v.Name)
		res, knee, serr := cv.s.run(ctx, ctl, cv.prepared)
		if errors.Is(serr, errStepper) {
			fmt.Fprintf(c.Stderr, "crank capacity: variant %s: %v\n", cv.v.Name, serr)
			code = runner.ExitFailed
			break
		}
		fmt.Fprintf(c.Stdout, "variant %s\n", cv.v.Name)
		vc := searchCode(ctx, c.Stderr, res, serr)
		out := cv.s.answer(res, knee, vc, started, runner.Variant(c.Plan.Run.Properties, cv.prepared.Resolved))
		_ = c.WriteTo(ctx, output.Capacity, "", out) // a failure is said by the output; the exit status is the search's
		fmt.Fprintln(c.Stdout)
		done = append(done, VariantCapacity{Named: capacity.Named{Variant: cv.v.Name, Result: res}, Settings: cv.v.Settings})
		if vc == runner.ExitInterrupted {
			code = vc
			break
		}
		code = matrixCode(code, vc)
		if !cv.s.publish(ctx, out) {
			code = runner.ExitFailed
		}
	}
	return s.writeMatrix(ctx, done, code, started)
}

// matrixCode is the matrix's exit status so far with a variant's: a variant with no capacity (or
// whose search failed) fails the matrix; one that cannot tell makes it inconclusive.
func matrixCode(code, c int) int {
	switch {
	case c == ExitCannotTell && code == runner.ExitOK:
		return ExitCannotTell
	case c != runner.ExitOK && c != ExitCannotTell:
		return runner.ExitFailed
	}
	return code
}

// matrixDryRun writes each variant's first step to stdout.
func (s *search) matrixDryRun(ctx context.Context, variants []variant) int {
	c := s.c
	if c.DryRun != "-" {
		fmt.Fprintln(c.Stderr, "crank capacity: --dry-run with --matrix writes each variant's first step to stdout: give --dry-run -")
		return runner.ExitBadInput
	}
	for _, cv := range variants {
		first, err := cv.s.step(ctx, cv.s.settings.Start)
		if err != nil {
			fmt.Fprintf(c.Stderr, "crank capacity: variant %s: %v\n", cv.v.Name, err)
			return runner.ExitBadInput
		}
		if code := c.WriteDryRunOf("-", first.Resolved); code != runner.ExitOK {
			return code
		}
	}
	return runner.ExitOK
}

// writeMatrix prints the variants' capacities side by side and writes the matrix's result file
// (--json): every variant's search under "capacity".
func (s *search) writeMatrix(ctx context.Context, done []VariantCapacity, code int, started time.Time) int {
	c := s.c
	out := &results.Result{StartTime: started.UTC(), Scenario: s.src.Scenario, Profiles: s.src.Profiles, ReturnCode: code,
		JobResults: results.JobResults{Jobs: map[string]*results.JobResult{}, Properties: c.Plan.Run.Properties}}
	if b, err := json.Marshal(map[string]any{"variants": done}); err == nil {
		out.Capacity = b
	}
	if s.write(ctx, out) != nil && code == runner.ExitOK {
		code = runner.ExitFailed
	}
	return code
}

// matrixVariants resolves and checks every variant of the matrix.
func (s *search) matrixVariants(ctx context.Context, axes []sweep.Axis) ([]variant, error) {
	if err := sweep.CheckAxes(axes); err != nil {
		return nil, err
	}
	var out []variant
	for _, v := range sweep.Product(axes) {
		vs := *s
		vs.src = sweep.VariantSource(s.src, axes, v)
		prepared, err := vs.check(ctx)
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		out = append(out, variant{v: v, s: &vs, prepared: prepared})
	}
	return out, nil
}
