package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
)

// FormatVersion is written in every sweep file.
const FormatVersion = 1

// File is a sweep's JSON: the matrix, the run order's progress and each variant's results in
// crank's result shape (iterations kept, so any two can be compared with crank compare).
type File struct {
	Sweep      int       `json:"sweep"` // FormatVersion
	StartTime  time.Time `json:"startTime"`
	Scenario   string    `json:"scenario"`
	Profiles   []string  `json:"profiles,omitempty"`
	Axes       []Axis    `json:"axes"`
	Baseline   string    `json:"baseline"`
	Iterations int       `json:"iterations"`
	// Done counts the runs finished, in Order(len(Variants), Iterations).
	Done     int             `json:"done"`
	Variants []VariantResult `json:"variants"`
}

// VariantResult is one variant's results over the runs done so far.
type VariantResult struct {
	Cell
	Result *results.Result `json:"result,omitempty"`
}

// NewFile is an empty sweep of the axes' product.
func NewFile(scenario string, profiles []string, axes []Axis, baseline string, iterations int) (*File, error) {
	f := &File{Sweep: FormatVersion, StartTime: time.Now().UTC(), Scenario: scenario, Profiles: profiles,
		Axes: axes, Iterations: iterations}
	for _, v := range Product(axes) {
		f.Variants = append(f.Variants, VariantResult{Cell: v})
	}
	b, err := f.find(baseline)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	f.Baseline = f.Variants[b].Name
	return f, nil
}

// Total is the number of runs of the whole sweep.
func (f *File) Total() int { return len(f.Variants) * f.Iterations }

// Complete tells whether every run is done.
func (f *File) Complete() bool { return f.Done >= f.Total() }

// BaselineIndex is the baseline variant's index.
func (f *File) BaselineIndex() int {
	i, _ := f.find(f.Baseline)
	return i
}

// find returns the variant named name ("" is the first; "2" the second).
func (f *File) find(name string) (int, error) {
	if name == "" {
		return 0, nil
	}
	for i, v := range f.Variants {
		if v.Name == name {
			return i, nil
		}
	}
	var n int
	if _, err := fmt.Sscanf(name, "%d", &n); err == nil && fmt.Sprint(n) == name && n >= 1 && n <= len(f.Variants) {
		return n - 1, nil
	}
	return 0, fmt.Errorf("no variant %q; variants: %s", name, f.names())
}

func (f *File) names() string {
	var s []string
	for _, v := range f.Variants {
		s = append(s, v.Name)
	}
	return fmt.Sprint(s)
}

// Add records one run of variant i: each service's results become one more iteration, the
// results are the mean of the iterations, the timelines the latest run's; the diagnosis of the
// runs so far is dropped, for Run's judgement (Options.Judge, internal/runner's) to make again.
func (f *File) Add(i int, run *results.Result) {
	v := &f.Variants[i]
	v.Result = results.AddIteration(v.Result, run)
	if v.Result.JobResults.Properties == nil {
		v.Result.JobResults.Properties = map[string]string{}
	}
	v.Result.JobResults.Properties["variant"] = v.Name
	v.Result.JobResults.Diagnostics = nil // the merged results' judgement is Run's (Options.Judge)
	f.Done++
}

// Runs is how many runs variant i has.
func (f *File) Runs(i int) int {
	r := f.Variants[i].Result
	if r == nil {
		return 0
	}
	n := 0
	for _, jr := range r.JobResults.Jobs {
		n = max(n, len(jr.Iterations))
	}
	return n
}

// ReadFile reads a sweep file.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: not a sweep file: %w", path, err)
	}
	if f.Sweep == 0 || len(f.Variants) == 0 {
		return nil, fmt.Errorf("%s: not a sweep file (no sweep version or no variants)", path)
	}
	if f.Sweep > FormatVersion {
		return nil, fmt.Errorf("%s: sweep format %d is newer than this crank's %d", path, f.Sweep, FormatVersion)
	}
	for _, v := range f.Variants {
		if v.Result != nil {
			results.Upgrade(v.Result) // a sweep resumed from an older crank keeps one unit per figure
		}
	}
	return &f, nil
}

// WriteFile writes the sweep as indented JSON, atomically.
func (f *File) WriteFile(path string) error { return results.WriteJSON(path, f) }
