// Package results holds crank-shaped run results: their JSON form, how a job's samples become
// summary values, and how they are shown.
package results

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Result is one run of a scenario, in crank's JSON shape plus a start time and the run's identity.
type Result struct {
	ReturnCode  int        `json:"returnCode"`
	StartTime   time.Time  `json:"startTime"`
	Scenario    string     `json:"scenario,omitempty"`
	Profiles    []string   `json:"profiles,omitempty"`
	Description string     `json:"description,omitempty"`
	Session     string     `json:"session,omitempty"`
	JobResults  JobResults `json:"jobResults"`
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
	// Values are results that are not numbers (crank's netSdkVersion, a script's text): written
	// under results with the numbers.
	Values map[string]any `json:"-"`
}

// Diagnostic is one finding of the post-run diagnosis ("client-bound", "contention-bound", ...).
type Diagnostic struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// ReadFile reads a result written by WriteFile (or by crank, where the shapes agree).
func ReadFile(path string) (*Result, error) {
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
	return &r, nil
}

// WriteFile writes the result as indented JSON, atomically (temporary file, then rename).
func WriteFile(path string, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
