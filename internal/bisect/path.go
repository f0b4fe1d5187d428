package bisect

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Figure is how the bisected metric is written: its unit and rounding, the catalog's, so that
// crank bisect's lines and crank report's table write the same text.
type Figure struct {
	Name         string // the measurement ("http/rps/mean"), without the service
	Unit, Format string
}

// FigureOf is the figure of a metric as crank bisect names it ("load:http/rps/mean"). A name the
// catalog lacks (a job's own counter) is written with two decimals and no unit, as the results
// table writes a result without metadata.
func FigureOf(metric string) Figure {
	name := metric
	if _, m, ok := strings.Cut(metric, ":"); ok {
		name = m
	}
	md, ok := measure.Default().Lookup(name)
	if !ok {
		return Figure{Name: name, Format: "n2"}
	}
	return Figure{Name: name, Unit: md.Unit, Format: md.Format}
}

// Value writes v with the figure's rounding and unit: "69,938 req/s".
func (f Figure) Value(v float64) string {
	return strings.TrimSpace(results.Format(v, f.Format) + " " + f.Unit)
}

// Interval writes a relative half-width as the path's interval cell: "± 2.1 %".
func Interval(relative float64) string {
	return fmt.Sprintf("± %.1f %%", 100*relative)
}

// Estimate writes a mean and its interval as crank bisect's progress lines do, with the figure's
// rounding and unit, as the path writes the same mean: "48,108 req/s ± 2.1 %".
func (f Figure) Estimate(mean, relative float64) string {
	return f.Value(mean) + " " + Interval(relative)
}

// Row is one commit of the path, cell by cell, as crank bisect writes it.
type Row struct {
	// Head names the commit's place: "good (baseline)", "bad (the other end)", "step 2 of about 4".
	Head string
	Step Step
	// Mean is the figure ("69,938 req/s"), Interval its 95 % interval's half-width over the mean
	// ("± 21.6 %"), Iterations how many runs; all "" for a skipped commit, and Mean and Interval
	// for a commit none of whose rounds was counted (steal: Step.Dropped).
	Mean, Interval, Iterations string
	// Change ("-77.7 %" from good), P ("0.004") and Verdict are "" for the baseline, which is
	// good by definition.
	Change, P, Verdict string
	// Good is the good end's mean over this commit's rounds, what Change is from ("" when not
	// recorded, and for the ends).
	Good string
	// Rerun says how many iterations were run again on a disturbed machine ("" for none).
	Rerun string
	// Dropped says how many rounds were not counted: still under steal once run again ("" for none).
	Dropped string
	// Place is where a step lies between the ends (PlaceText; "" for the ends).
	Place string
	// Diagnosis is internal/runner's judgement of the commit's latest iteration, its kinds
	// ("server-bound", "machine-busy"); Diagnoses their messages, a line each. "" without one.
	Diagnosis, Diagnoses string
}

// Row is step n of about (0: the good end, the baseline; -1: the bad end) as crank bisect writes it.
func (f Figure) Row(n, about int, s Step) Row {
	r := Row{Head: "good (baseline)", Step: s, Verdict: s.Verdict}
	var kinds, messages []string
	for _, d := range s.Diagnosis {
		kinds, messages = append(kinds, d.Kind), append(messages, d.Kind+": "+d.Message)
	}
	r.Diagnosis, r.Diagnoses = strings.Join(kinds, ", "), strings.Join(messages, "\n")
	switch {
	case n < 0:
		r.Head = "bad (the other end)"
	case n > 0:
		r.Head = fmt.Sprintf("step %d of about %d", n, about)
	}
	if s.Verdict == Skip {
		return r
	}
	rel := 0.0
	if s.Mean != 0 {
		rel = s.HalfWidth / s.Mean
	}
	r.Mean, r.Interval, r.Iterations = f.Value(s.Mean), Interval(rel), fmt.Sprint(s.Iterations)
	if s.Rerun > 0 {
		r.Rerun = fmt.Sprintf("%d more run again: machine disturbed", s.Rerun)
	}
	if s.Dropped > 0 {
		r.Dropped = fmt.Sprintf("%d %s not counted: steal", s.Dropped, map[bool]string{true: "round", false: "rounds"}[s.Dropped == 1])
	}
	if s.Iterations == 0 && s.Dropped > 0 { // every round not counted (steal): no figure
		r.Mean, r.Interval = "", ""
		if n != 0 {
			r.Verdict = s.Verdict
		}
		return r
	}
	if n == 0 {
		r.Verdict = ""
		return r
	}
	r.Change, r.P = fmt.Sprintf("%+.1f %%", 100*s.Change), fmt.Sprintf("%.3f", s.PValue)
	if s.GoodMean > 0 {
		r.Good = f.Value(s.GoodMean)
	}
	if s.WayHalfWidth > 0 {
		r.Place = PlaceText(s.Way, s.WayHalfWidth)
	}
	return r
}

// PlaceText says where a commit lies between the ends (Placement.Way): "at 0.94 ± 0.31 of the way
// from good to bad".
func PlaceText(way, half float64) string {
	if math.Abs(way) < 0.005 {
		way = 0 // not "-0.00"
	}
	return fmt.Sprintf("at %.2f ± %.2f of the way from good to bad", way, half)
}

// Line is the row as crank bisect prints it.
func (r Row) Line() string {
	c := r.Step.Commit
	if r.Step.Verdict == Skip {
		return fmt.Sprintf("%s: %s %s: skip (%s)", r.Head, c.Short(), c.Subject, r.Step.Note)
	}
	line := fmt.Sprintf("%s: %s %s: %s %s over %s iterations", r.Head, c.Short(), c.Subject, r.Mean, r.Interval, r.Iterations)
	if r.Mean == "" {
		line = fmt.Sprintf("%s: %s %s: no iteration counted", r.Head, c.Short(), c.Subject)
	}
	if notes := slices.DeleteFunc([]string{r.Rerun, r.Dropped}, func(n string) bool { return n == "" }); len(notes) > 0 {
		line += " (" + strings.Join(notes, "; ") + ")"
	}
	switch {
	case r.Verdict != "" && r.Mean == "":
		line += ": " + r.Verdict
	case r.Verdict != "":
		from := "good"
		if r.Good != "" {
			from = "good's " + r.Good + " beside it"
		}
		line += fmt.Sprintf(", %s from %s (p %s)", r.Change, from, r.P)
		if r.Place != "" {
			line += ", " + r.Place
		}
		line += ": " + r.Verdict
	}
	if r.Diagnosis != "" {
		line += " (diagnosis: " + r.Diagnosis + ")"
	}
	return line
}

// Path is the search's commits as crank bisect prints them at the end: the good end, the bad end
// when it was measured, then each step in the order they ran.
func (r Result) Path() []Row {
	f := FigureOf(r.Metric)
	rows := []Row{f.Row(0, 0, r.Baseline)}
	if r.BadEnd.Commit.SHA != "" {
		rows = append(rows, f.Row(-1, 0, r.BadEnd))
	}
	for i, s := range r.Steps {
		rows = append(rows, f.Row(i+1, len(r.Steps), s))
	}
	return rows
}

// Answer is the search's answer as crank bisect writes it: its first line, and the candidates (short
// hash and subject) when skipped commits leave several. A search that stopped says why.
func (r Result) Answer() (string, []string) {
	switch {
	case r.Stopped != "":
		return r.Stopped, nil
	case r.NoneWorse:
		return fmt.Sprintf("no commit is worse: %s at %s is within the noise of %s", r.Metric, r.Bad.Short(), r.Good.Short()), nil
	case len(r.Candidates) > 0:
		var lines []string
		for _, c := range r.Candidates {
			lines = append(lines, c.Short()+" "+c.Subject)
		}
		return "the first bad commit is one of (commits that did not build are in the way):", lines
	}
	return fmt.Sprintf("first bad commit: %s %s", r.FirstBad, r.FirstBadSubject), nil
}

// Measured says how the commits of a round were run: one after the other, or side by side.
func (r Result) Measured() string {
	if r.SideBySide {
		return "the commits of a round measured side by side"
	}
	return "the commits of a round measured one after the other"
}

// WritePath writes the path and the answer as crank bisect prints them at the end; the answer of a
// search that stopped is left to the caller (crank bisect writes why to its standard error).
func WritePath(w io.Writer, r Result) {
	side := ""
	if r.SideBySide {
		side = ", " + r.Measured()
	}
	fmt.Fprintf(w, "bisect of %s from %s (good) to %s (bad)%s:\n", r.Metric, r.Good.Short(), r.Bad.Short(), side)
	for _, row := range r.Path() {
		fmt.Fprintln(w, "  "+row.Line())
	}
	if r.Dropped > 0 {
		fmt.Fprintf(w, "  not counted: %d rounds during which the hypervisor still took the machine's CPU (steal) once run again; none of their figures is in the verdicts above\n", r.Dropped)
	}
	if r.Stopped != "" {
		return
	}
	answer, candidates := r.Answer()
	fmt.Fprintln(w, answer)
	for _, c := range candidates {
		fmt.Fprintln(w, "  "+c)
	}
}
