package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

// VariantCapacity is one variant's search in a capacity matrix's result file.
type VariantCapacity struct {
	Variant  string          `json:"variant"`
	Settings []sweep.Setting `json:"settings"`
	capacity.Result
}

// capacityVariant is a variant's flags and resolved scenario.
type capacityVariant struct {
	v        sweep.Variant
	cf       *capacityFlags
	resolved *config.Resolved
}

// runMatrix is crank capacity --matrix: every variant is resolved and checked before anything
// runs, then searched in turn (each with its own application), then their capacities are shown side
// by side, the first variant the baseline.
func (cf *capacityFlags) runMatrix(ctx context.Context, st State) int {
	variants, err := cf.matrixVariants(ctx, st)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank capacity: %v\n", err)
		return ExitBadInput
	}
	f := cf.run
	if f.dryRun != "" {
		if f.dryRun != "-" {
			fmt.Fprintln(st.Stderr, "crank capacity: --dry-run with --matrix writes each variant's first step to stdout: give --dry-run -")
			return ExitBadInput
		}
		for _, cv := range variants {
			first, err := cv.cf.stepResolved(ctx, st, cv.cf.settings.Start)
			if err != nil {
				fmt.Fprintf(st.Stderr, "crank capacity: variant %s: %v\n", cv.v.Name, err)
				return ExitBadInput
			}
			if code := writeDryRun(st, "-", first); code != ExitOK {
				return code
			}
		}
		return ExitOK
	}
	ctl, err := newController(st, f, logger(st.Stderr, f.verbose), st.Stderr, nil)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank capacity: %v\n", err)
		return ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	started := time.Now()
	var done []VariantCapacity
	code := ExitOK
	for i, cv := range variants {
		fmt.Fprintf(st.Stderr, "capacity: variant %d of %d: %s\n", i+1, len(variants), cv.v.Name)
		res, knee, serr := cv.cf.search(ctx, st, ctl, cv.resolved)
		if errors.Is(serr, errStepper) {
			fmt.Fprintf(st.Stderr, "crank capacity: variant %s: %v\n", cv.v.Name, serr)
			code = ExitFailed
			break
		}
		fmt.Fprintf(st.Stdout, "variant %s\n", cv.v.Name)
		capacity.WriteTable(st.Stdout, res)
		fmt.Fprintf(st.Stdout, "%s\n\n", res.Summary())
		done = append(done, VariantCapacity{Variant: cv.v.Name, Settings: cv.v.Settings, Result: res})
		c := searchCode(ctx, st, res, serr)
		if c == ExitInterrupted {
			code = c
			break
		}
		switch { // a variant with no capacity (or whose search failed) fails the matrix; one that cannot tell makes it inconclusive
		case c == ExitCannotTell && code == ExitOK:
			code = ExitCannotTell
		case c != ExitOK && c != ExitCannotTell:
			code = ExitFailed
		}
		out := cv.cf.answer(res, knee, c, started, runner.Variant(f.properties, cv.resolved))
		if !cv.cf.publish(ctx, st, out) {
			code = ExitFailed
		}
	}
	writeCapacities(st.Stdout, done)
	if f.jsonOut != "" {
		out := &results.Result{StartTime: started.UTC(), Scenario: f.scenario, Profiles: f.profiles, ReturnCode: code,
			JobResults: results.JobResults{Jobs: map[string]*results.JobResult{}, Properties: f.properties}}
		if b, err := json.Marshal(map[string]any{"variants": done}); err == nil {
			out.Capacity = b
		}
		if !writeJSON(st, f.jsonOut, out) && code == ExitOK {
			code = ExitFailed
		}
	}
	return code
}

// matrixVariants resolves and checks every variant of the matrix.
func (cf *capacityFlags) matrixVariants(ctx context.Context, st State) ([]capacityVariant, error) {
	if err := sweep.CheckAxes(cf.axes); err != nil {
		return nil, err
	}
	var out []capacityVariant
	for _, v := range sweep.Product(cf.axes) {
		vcf := *cf
		vcf.run, vcf.axes = variantFlags(cf.run, cf.axes, v), nil
		resolved, err := vcf.check(ctx, st)
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		out = append(out, capacityVariant{v: v, cf: &vcf, resolved: resolved})
	}
	return out, nil
}

// writeCapacities prints each variant's capacity beside the first's, with the knee's verdict.
func writeCapacities(w io.Writer, vs []VariantCapacity) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintln(w, "capacity per variant (the first is the baseline):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tcapacity req/s\tvs baseline\tfailed at req/s\tat the knee\t")
	base := vs[0].Rate
	if vs[0].Inconclusive != "" {
		base = 0
	}
	for _, v := range vs {
		ratio, rate := "-", fmt.Sprintf("%.0f", v.Rate)
		if base > 0 && v.Rate > 0 && v.Inconclusive == "" {
			ratio = fmt.Sprintf("%.2fx", v.Rate/base)
		}
		if v.Inconclusive != "" {
			rate = fmt.Sprintf("cannot tell (%.0f-%.0f)", v.Rate, v.FailedAt)
		}
		kind := v.VerdictKind
		if kind == "" {
			kind = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%s\t\n", v.Variant, rate, ratio, v.FailedAt, kind)
	}
	_ = tw.Flush()
}
