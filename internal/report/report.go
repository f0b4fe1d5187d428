// Package report turns result files into one self-contained HTML page (`crank report`): a summary
// of each run, its timelines drawn with gonum/plot as inline SVG (requests/s, CPU, latency,
// lock contention, exceptions; a series at 0 throughout or one no run sampled is said in a line),
// its results table and diagnosis, and for two or more files the runs overlaid, aligned at their
// measured start, with the comparison of `crank compare` as HTML tables. The page loads nothing
// from the network and prints one section a page.
package report

import (
	"bytes"
	"context"
	"embed"

	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/crankshaft/crankshaft/internal/flags"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

//go:embed report.html.tmpl
var files embed.FS

var page = template.Must(template.New("report.html.tmpl").ParseFS(files, "report.html.tmpl"))

// Run is one result file in the report.
type Run struct {
	Label    string // the file's name
	Path     string
	Result   *results.Result
	Services []string // sorted: the load services last
}

// Table is one service's results of one run.
type Table struct {
	Run, Service string
	Rows         [][3]string
}

// Page is what the template renders.
type Page struct {
	Title string
	// Summaries are the headline of each run, at the top.
	Summaries []Summary
	// ChartsHeading names the charts' section ("Timelines" when empty).
	ChartsHeading string
	// Sweep is a sweep file's tables, for a sweep file's page.
	Sweep       *SweepView
	Runs        []Run
	Charts      []Chart
	Tables      []Table
	Comparisons []Comparison // crank compare's, the first run against each other
	Diagnoses   []Diagnosis
	// Flames are the flame graphs of the profiles the runs saved (docs/PROFILES.md).
	Flames []Flame
	// Capacity holds each crank capacity search of the files (a matrix's: each variant's).
	Capacity []CapacityView
	// Bisect holds each crank bisect search of the files.
	Bisect []BisectView
}

// Diagnosis is one run's (or sweep variant's) diagnosis: the verdict first.
type Diagnosis struct {
	Label    string
	Findings []results.Diagnostic
	NotRun   bool
}

// SummaryNotes tells whether a run's summary has a note (iterations, interruption).
func (pg *Page) SummaryNotes() bool {
	for _, s := range pg.Summaries {
		if s.Note != "" {
			return true
		}
	}
	return false
}

// Collapsed lists the charts said in a line rather than drawn; missing are those with nothing
// to draw (not those whose every sample is 0).
func (pg *Page) Collapsed() (collapsed, missing []string) {
	for _, c := range pg.Charts {
		if c.Note != "" {
			collapsed = append(collapsed, c.Note)
			if !c.Zero {
				missing = append(missing, c.Note)
			}
		}
	}
	return collapsed, missing
}

// Build reads the result files and assembles the page.
func Build(paths []string) (*Page, error) {
	pg := &Page{Title: "crank report: " + strings.Join(labels(paths), " vs ")}
	for i, p := range paths {
		r, err := results.ReadFile(p)
		if err != nil {
			return nil, err
		}
		run := Run{Label: labels(paths)[i], Path: p, Result: r, Services: services(r)}
		pg.Runs = append(pg.Runs, run)
		sum := summarize(run.Label, r)
		if len(r.JobResults.Jobs) == 0 && len(r.Bisect) > 0 { // crank bisect's file: the path, no run of its own
			sum.Note = "crank bisect's path (below): no run of its own"
		} else {
			pg.Diagnoses = append(pg.Diagnoses, Diagnosis{Label: run.Label, Findings: r.JobResults.Diagnostics})
		}
		pg.Summaries = append(pg.Summaries, sum)
		if len(r.Capacity) > 0 {
			views, err := capacityViews(run.Label, r.Capacity)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			pg.Capacity = append(pg.Capacity, views...)
		}
		if len(r.Bisect) > 0 {
			v, err := bisectView(run.Label, r.Bisect)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			pg.Bisect = append(pg.Bisect, v)
		}
		pg.Flames = append(pg.Flames, flames(run)...)
		for _, s := range run.Services {
			pg.Tables = append(pg.Tables, Table{Run: run.Label, Service: s, Rows: results.Rows(r.JobResults.Jobs[s])})
		}
	}
	said, sp := map[string]bool{}, timeSpan(pg.Runs)
	timelines := charts
	if !slices.ContainsFunc(pg.Runs, func(r Run) bool { return len(r.Services) > 0 }) {
		timelines = nil // no run has a job (a bisect's file): no timeline to draw or to miss
	}
	for _, spec := range timelines {
		c, err := buildChart(spec, pg.Runs, sp)
		if err != nil {
			return nil, err
		}
		if spec.Group != "" && said[spec.Group] {
			if c.Note != "" {
				continue // the group's missing line is said once
			}
			c.Absent = nil
		}
		if c.Note != "" || len(c.Absent) > 0 {
			said[spec.Group] = spec.Group != ""
		}
		pg.Charts = append(pg.Charts, c)
	}
	for _, run := range pg.Runs[1:] {
		opts := gate.CompareOptions{BaseName: pg.Runs[0].Label, HeadName: run.Label}
		rep, err := gate.CompareResults(pg.Runs[0].Result, run.Result, opts, nil)
		if err != nil {
			return nil, fmt.Errorf("comparing %s with %s: %w", pg.Runs[0].Path, run.Path, err)
		}
		pg.Comparisons = append(pg.Comparisons, comparison(rep, pg.Runs[0].Label, run.Label))
	}
	for i, c := range pg.Comparisons {
		withChanges(&pg.Summaries[i+1], pg.Runs[i+1].Result, c)
	}
	return pg, nil
}

// build is the page of result files, or of one sweep file.
func build(paths []string) (*Page, error) {
	for _, p := range paths {
		if !results.IsSweepFile(p) {
			continue
		}
		if len(paths) > 1 {
			return nil, fmt.Errorf("%s is a sweep file: report it alone (its variants are compared inside it), or name variants as %s#VARIANT", p, p)
		}
		return BuildSweep(p)
	}
	return Build(paths)
}

// labels names each run by its file name, with the folder when two names are the same.
func labels(paths []string) []string {
	out := make([]string, len(paths))
	seen := map[string]int{}
	for i, p := range paths {
		out[i] = filepath.Base(p)
		seen[out[i]]++
	}
	for i, p := range paths {
		if seen[out[i]] > 1 {
			out[i] = p
		}
	}
	return out
}

// services lists a run's services, servers first (the jobs with no requests/s result), by name.
func services(r *results.Result) []string {
	var names []string
	for n := range r.JobResults.Jobs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		li, lj := isLoad(r.JobResults.Jobs[names[i]]), isLoad(r.JobResults.Jobs[names[j]])
		if li != lj {
			return lj
		}
		return names[i] < names[j]
	})
	return names
}

func isLoad(jr *results.JobResult) bool {
	_, ok := jr.Results["http/rps/mean"]
	return ok
}

// Write renders the page as HTML.
func (pg *Page) Write(w io.Writer) error { return page.Execute(w, pg) }

// Main is `crank report FILE.json [MORE.json...] -o report.html`.
func Main(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var out string
	fs := &flags.Set{}
	fs.String(&out, "the HTML file to write (required)", "output", "o")
	help := func(w io.Writer) { fmt.Fprint(w, usage); fs.Usage(w) }
	paths, err := fs.Parse(args)
	if err != nil {
		return flags.Fail(err, "crank report", stdout, stderr, help)
	}
	if len(paths) == 0 || out == "" {
		help(stderr)
		return 2
	}
	if slices.Contains(paths, out) {
		fmt.Fprintf(stderr, "crank report: -o %s is one of the result files\n", out)
		return 2
	}
	pg, err := build(paths)
	if err != nil {
		fmt.Fprintf(stderr, "crank report: %v\n", err)
		return 2
	}
	var b bytes.Buffer
	if err := pg.Write(&b); err != nil {
		fmt.Fprintf(stderr, "crank report: %v\n", err)
		return 1
	}
	if err := safewrite.Replace(out, b.Bytes(), safewrite.Output); err != nil {
		fmt.Fprintf(stderr, "crank report: %v\n", err)
		return 1
	}
	what := fmt.Sprintf("%d run(s)", len(pg.Runs))
	if pg.Sweep != nil {
		what = "a sweep"
	}
	collapsed, missing := pg.Collapsed()
	drawn := len(pg.Charts) - len(collapsed)
	for _, c := range pg.Capacity {
		drawn += len(c.Charts)
	}
	if len(pg.Capacity) > 0 {
		what += fmt.Sprintf(", %d capacity search(es)", len(pg.Capacity))
	}
	for _, b := range pg.Bisect {
		if b.Chart != nil {
			drawn++
		}
	}
	if len(pg.Bisect) > 0 {
		what += fmt.Sprintf(", %d bisect search(es)", len(pg.Bisect))
	}
	fmt.Fprintf(stdout, "report written to %s (%s, %d chart(s))\n", out, what, drawn)
	for _, m := range missing {
		fmt.Fprintf(stderr, "crank report: %s\n", m)
	}
	return 0
}

const usage = `Usage: crank report RESULTS.json [MORE.json...] -o report.html

Writes one self-contained HTML page (no network needed to open it; it prints to PDF): a summary
of each run (scenario, machine, verdict, requests/s, p99, CPU), its timelines (requests/s, CPU,
latency where the load reports it over time, lock contention, exceptions/s), results tables and
diagnosis; with two or more files the runs are overlaid, aligned at their measured start, and
compared with the first as in crank compare, as tables coloured by verdict. A crank capacity
result adds its search: the answer, every step as crank capacity prints it, and p99 and server CPU
against the rate asked. A crank bisect result adds its path: the figure, the good and bad commits,
every commit measured as crank bisect prints it, the answer (the first bad commit, "no commit is
worse", the candidates, or why it stopped), and each commit's mean with its interval in the
history's order. A sweep file (crank sweep --json) gets its own page: RPS over core counts for each
cpuSet axis beside linear scaling (else each variant's mean RPS), and the sweep's tables,
contrasts, scaling and diagnoses; FILE#VARIANT reports one variant as a run.

`
