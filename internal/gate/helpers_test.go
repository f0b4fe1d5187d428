package gate

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
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
