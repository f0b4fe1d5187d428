// Package results holds crank-shaped run results: their JSON form, how a job's samples become
// summary values, and how they are shown.
package results

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/loadtool"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// Result is one run of a scenario, in crank's JSON shape plus a start time and the run's identity.
type Result struct {
	ReturnCode  int       `json:"returnCode"`
	StartTime   time.Time `json:"startTime"`
	Scenario    string    `json:"scenario,omitempty"`
	Profiles    []string  `json:"profiles,omitempty"`
	Description string    `json:"description,omitempty"`
	Session     string    `json:"session,omitempty"`
	// Variant names what this run varies from its scenario: its --property values and the
	// variables set to other values than the scenario's defaults ("partitions" -> "4").
	Variant    map[string]string `json:"variant,omitempty"`
	JobResults JobResults        `json:"jobResults"`
	// Failures says why returnCode is not 0: failed requests above the limit, thresholds crossed.
	Failures []string `json:"failures,omitempty"`
	// Thresholds holds every threshold checked, passed or not.
	Thresholds []ThresholdCheck `json:"thresholds,omitempty"`
	// Interrupted is set when the run was cut short (Ctrl-C, SIGTERM): the results are those of
	// the iterations that finished, or, with none, the partial measurements of the one that did not.
	Interrupted *Interruption `json:"interrupted,omitempty"`
	// Capacity is crank capacity's answer (internal/capacity.Result), kept as written.
	Capacity json.RawMessage `json:"capacity,omitempty"`
	// Bisect is crank bisect's path (internal/bisect.Result), kept as written.
	Bisect json.RawMessage `json:"bisect,omitempty"`
	// Precision is --iterations auto's: how many iterations it took and the interval reached.
	Precision *Precision `json:"precision,omitempty"`
}

// Precision is how precisely a run's headline figure (the loads' summed Metric) is known: its mean
// over Iterations and the half-width of the mean's 95 % confidence interval, absolute and relative
// to the mean; Met when that is within Target (relative).
type Precision struct {
	Metric     string  `json:"metric"`
	Iterations int     `json:"iterations"`
	Mean       float64 `json:"mean"`
	HalfWidth  float64 `json:"halfWidth"`
	Relative   float64 `json:"relative"`
	Target     float64 `json:"target"`
	Met        bool    `json:"met"`
}

// ThresholdCheck is one threshold ("load: http/latency/99 < 5") and how the run met it.
type ThresholdCheck struct {
	Service   string  `json:"service,omitempty"` // empty: every service reporting Metric
	Metric    string  `json:"metric"`
	Condition string  `json:"condition"` // "< 5"
	Source    string  `json:"source"`    // where it was set: the scenario, or --threshold
	Value     float64 `json:"value"`
	Found     bool    `json:"found"`
	Pass      bool    `json:"pass"`
}

// Interruption says how far an interrupted run got.
type Interruption struct {
	FinishedIterations int `json:"finishedIterations"`
	Iterations         int `json:"iterations"`
	// Partial: the results are what the unfinished iteration had measured when it was stopped.
	Partial bool `json:"partial,omitempty"`
}

// Note describes an interrupted run above its tables.
func (in *Interruption) Note() string {
	if in.Partial {
		return fmt.Sprintf("Interrupted during iteration 1 of %d: PARTIAL results, what the jobs had measured when they were stopped.\n", in.Iterations)
	}
	return fmt.Sprintf("Interrupted: the results of the %d finished iteration(s) of %d.\n", in.FinishedIterations, in.Iterations)
}

// JobResults holds a result per service, the user's properties and the run's diagnosis.
type JobResults struct {
	Jobs        map[string]*JobResult `json:"jobs"`
	Properties  map[string]string     `json:"properties"`
	Diagnostics []Diagnostic          `json:"diagnostics,omitempty"`
}

// JobResult is one service's outcome. Measurements holds one timeline per endpoint the service ran on.
type JobResult struct {
	Results      map[string]float64  `json:"results"`
	Metadata     []api.Metadata      `json:"metadata"`
	Measurements [][]api.Measurement `json:"measurements"`
	Environment  map[string]any      `json:"environment"`
	Variables    map[string]any      `json:"variables"`
	// Iterations keeps each iteration's results when the run had --iterations N > 1.
	Iterations []map[string]float64 `json:"iterations,omitempty"`
	// Spread holds, with several iterations, each result's mean, stdev, CV, min and max over the
	// iterations that were kept (Results holds the means).
	Spread map[string]Spread `json:"spread,omitempty"`
	// Excluded lists the iterations (1-based) left out by --exclude.
	Excluded []int `json:"excluded,omitempty"`
	// TimelineIteration is the iteration (1-based) whose samples Measurements holds, with several.
	TimelineIteration int `json:"timelineIteration,omitempty"`
	// Values are results that are not numbers (crank's netSdkVersion, a script's text): written
	// under results with the numbers.
	Values map[string]any `json:"-"`
	// NotMeasured are figures the job's tool printed but not as a value to trust (wrk's 0.00us
	// percentiles of a pipelined run), with why: shown as such, never dropped without a word.
	NotMeasured map[string]string `json:"-"`
	// Generators, for a load that ran on several endpoints, are each one's share, figures and
	// window (generators.go).
	Generators []Generator `json:"-"`
	// Approximate are figures reduced across generators that gave no histogram to merge (the
	// max of wrk's p99s), with why: the table says they are approximations.
	Approximate map[string]string `json:"-"`
	// LoadTool, on a load job whose tool crank knows, is the model of its run: open or closed
	// loop, whether its latency is corrected for coordinated omission, its percentiles, what its
	// requests/s counts (internal/loadtool). The table says its latency note under the figures.
	LoadTool *loadtool.Model `json:"-"`
	// Profiles are the service's profiles, per endpoint and iteration (collect, goProfiles).
	Profiles []Profile `json:"-"`
}

// Diagnostic is one finding of the post-run diagnosis ("client-bound", "contention-bound", ...)
// with the figures it rests on. The first of JobResults.Diagnostics is the run's verdict; the
// others are findings beside it that never contradict it (Verdict).
type Diagnostic struct {
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Figures []Figure `json:"figures,omitempty"`
}

// Figure is one figure a diagnosis rests on: a service's measurement (a catalog name) or setting,
// its value and unit. Stat says how it was taken from the samples ("mean": the mean of the
// measured samples; empty: the run's result or setting).
type Figure struct {
	Service string  `json:"service,omitempty"`
	Name    string  `json:"name"`
	Stat    string  `json:"stat,omitempty"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
}

// String is "application benchmarks/cpu (mean) 95 %".
func (f Figure) String() string {
	s := f.Name
	if f.Service != "" {
		s = f.Service + " " + s
	}
	if f.Stat != "" {
		s += " (" + f.Stat + ")"
	}
	v := formatValue(f.Name, f.Value)
	if f.Unit == "" {
		return s + " " + v
	}
	return s + " " + v + " " + f.Unit
}

// formatValue writes v as the tables write the figure name: a catalog figure with its format, so
// that a verdict, a progress line and the table beside them show one number; other figures
// (settings, shares) with two decimals under 10.
func formatValue(name string, v float64) string {
	if md, ok := measure.Default().Lookup(name); ok && md.Format != "" {
		return Format(v, md.Format)
	}
	if math.Abs(v) < 10 && v != math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return Format(v, "n0")
}

// Value is a catalog figure's value as the tables write it, with its unit: "8.1 %".
func Value(name string, v float64) string {
	md, _ := measure.Default().Lookup(name)
	return strings.TrimSpace(formatValue(name, v) + " " + md.Unit)
}

// Verdict is the run's one verdict: the first diagnostic (false when there is none).
func (j JobResults) Verdict() (Diagnostic, bool) {
	if len(j.Diagnostics) == 0 {
		return Diagnostic{}, false
	}
	return j.Diagnostics[0], true
}

// ReadFile reads a result written by WriteFile (or by crank, where the shapes agree), or one
// variant of a sweep file, named as FILE#VARIANT (see ReadVariant).
func ReadFile(path string) (*Result, error) {
	if file, variant, ok := splitVariant(path); ok {
		return ReadVariant(file, variant)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a result file: %w", path, err)
	}
	if r.JobResults.Jobs == nil {
		return nil, fmt.Errorf("%s: not a result file: no jobResults.jobs", path)
	}
	Upgrade(&r)
	return &r, nil
}

// Marshal returns the result as indented JSON ending in a newline.
func Marshal(r *Result) ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	return append(b, '\n'), err
}

// WriteFile writes the result as indented JSON, as WriteJSON does.
func WriteFile(path string, r *Result) error { return WriteJSON(path, r) }

// WriteJSON writes v as indented JSON, atomically and never through a link (safewrite.Replace).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safewrite.Replace(path, b, safewrite.Output)
}

// WriteTemp writes the result into a new file in the system's temporary folder and names it:
// where results go when the file asked for cannot be written.
func WriteTemp(r *Result) (string, error) {
	b, err := Marshal(r)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "crank-results-*.json")
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}
