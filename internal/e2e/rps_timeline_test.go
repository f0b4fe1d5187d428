package e2e

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestAppRequestsPerSecondTimeline: a plaintext run's JSON holds, for the application, one
// runtime-counter/requests-per-second sample per second of the measured phase (from the app's
// app_requests_total, scraped by the agent), and in steady state (leaving out the first and last
// measured second, which straddle the load's start and end) each is within 10% of the load's
// mean requests/sec. A busy machine can disturb one second: up to 3 runs.
func TestAppRequestsPerSecondTimeline(t *testing.T) {
	const duration = 6
	var last error
	for attempt := range 3 {
		out := filepath.Join(t.TempDir(), "out.json")
		_, ports := appPorts(t)
		r := crank(t, 2*time.Minute, append([]string{"--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
			"--variable", fmt.Sprint("duration=", duration), "--variable", "warmup=1", "--json", out}, ports...)...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		res := runResultFile(t, out)
		rps := res.JobResults.Jobs["load"].Results[measure.RPS]
		measured, warm := samples(res.JobResults.Jobs["application"], measure.RequestsPerSecond)
		if len(measured) < duration-1 || len(warm) == 0 {
			t.Fatalf("%d measured and %d warm-up %s samples, want >= %d and > 0", len(measured), len(warm),
				measure.RequestsPerSecond, duration-1)
		}
		if got := res.JobResults.Jobs["application"].Results[measure.RequestsPerSecond]; got <= 0 {
			t.Errorf("application %s result %v", measure.RequestsPerSecond, got)
		}
		last = nil
		for i, m := range measured[1 : len(measured)-1] {
			if math.Abs(m.Value-rps) > 0.1*rps {
				last = fmt.Errorf("second %d: %.0f req/s, load mean %.0f (samples %v)", i+2, m.Value, rps, values(measured))
				break
			}
		}
		if last == nil {
			t.Logf("attempt %d: load %.0f req/s, app samples %.0f", attempt+1, rps, values(measured))
			return
		}
		t.Logf("attempt %d: %v", attempt+1, last)
	}
	t.Error(last)
}

// runResultFile reads a result file with the results package (readResult reads a partial shape).
func runResultFile(t *testing.T, path string) *results.Result {
	t.Helper()
	res, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
