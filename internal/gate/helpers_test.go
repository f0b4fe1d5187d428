package gate

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// metricSpec draws a metric's iterations as level * (1 + noise*N(0,1)).
type metricSpec struct {
	name         string
	level, noise float64
}

// newResult builds a one-service ("load") result with the given iterations per metric (0 for
// none: then the results hold the plain level) and the catalog's metadata.
func newResult(rng *rand.Rand, iterations int, specs ...metricSpec) *results.Result {
	jr := &results.JobResult{Results: map[string]float64{}}
	cat := measure.Default()
	for range iterations {
		jr.Iterations = append(jr.Iterations, map[string]float64{})
	}
	for _, s := range specs {
		if md, ok := cat.Lookup(s.name); ok {
			jr.Metadata = append(jr.Metadata, md)
		}
		if iterations == 0 {
			jr.Results[s.name] = s.level
			continue
		}
		sum := 0.0
		for _, it := range jr.Iterations {
			v := s.level * (1 + s.noise*rng.NormFloat64())
			it[s.name] = v
			sum += v
		}
		jr.Results[s.name] = sum / float64(iterations)
	}
	return &results.Result{
		StartTime:  time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Scenario:   "plaintext",
		JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"load": jr}},
	}
}

func writeResult(t *testing.T, dir, name string, r *results.Result) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := results.WriteFile(path, r); err != nil {
		t.Fatal(err)
	}
	return path
}

// runCompare runs the command in-process and returns its exit code, stdout and stderr.
func runCompare(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Compare(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// metadataFor returns the catalog's metadata of name.
func metadataFor(name string) *api.Metadata {
	md, ok := measure.Default().Lookup(name)
	if !ok {
		return nil
	}
	return &md
}

// fixedResult is a one-service ("load") result whose metric has exactly these iterations, and
// their mean as its value.
func fixedResult(metric string, values ...float64) *results.Result {
	r := newResult(rand.New(rand.NewPCG(1, 1)), len(values), metricSpec{metric, 1, 0})
	jr := r.JobResults.Jobs["load"]
	sum := 0.0
	for i, v := range values {
		jr.Iterations[i][metric] = v
		sum += v
	}
	jr.Results[metric] = sum / float64(len(values))
	return r
}

// scaled is level times each factor.
func scaled(level float64, factors ...float64) []float64 {
	out := make([]float64, len(factors))
	for i, f := range factors {
		out[i] = level * f
	}
	return out
}

// flat is s with every run of spaces one space: a table's text, its columns' widths aside.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }
