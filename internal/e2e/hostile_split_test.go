package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// loadPart is what a generator's agent answers for its load job's measurements: its requests/s
// and requests over a 2 s window ending now, as the built-in generator reports them.
func loadPart(rps, requests float64) func(now time.Time) api.Measurements {
	return func(now time.Time) api.Measurements {
		c := measure.Default()
		rpsMD, _ := c.Lookup(measure.RPS)
		reqMD, _ := c.Lookup(measure.Requests)
		return api.Measurements{
			Metadata: []api.Metadata{rpsMD, reqMD},
			Measurements: []api.Measurement{{Name: measure.RPS, Timestamp: now, Value: rps},
				{Name: measure.Requests, Timestamp: now, Value: requests}},
			Load: &api.LoadReport{Start: now.Add(-2 * time.Second), End: now, AchievedRate: rps},
		}
	}
}

// TestHostileSplitPartFailsTheRun: a load split over three agents, one of which reports
// -1e9 req/s, made the merged http/rps/mean -999,998,000 and crank exited 0 with no word. Now the
// run fails naming that agent and the figure, and the merged figure is not written (issue 41,
// MEDIUM 7). The application runs on a real agent; each generator's agent is a real agent behind
// a proxy answering its part.
func TestHostileSplitPartFailsTheRun(t *testing.T) {
	const token = "hostile-token"
	app := startAgent(t, fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--token", token)
	honest1 := hostileAgent(t, token, answerMeasurements(loadPart(1000, 2000)))
	honest2 := hostileAgent(t, token, answerMeasurements(loadPart(1000, 2000)))
	liar := hostileAgent(t, token, answerMeasurements(loadPart(-1e9, 2000)))
	cfg := shellJobs(t, t.TempDir(), fmt.Sprintf(`
profiles:
  split:
    agents:
      application: { endpoints: [ "%s" ] }
      load: { endpoints: [ "%s", "%s", "%s" ] }
`, app, honest1, liar, honest2))
	out := filepath.Join(t.TempDir(), "out.json")
	r := crankEnv(t, time.Minute, []string{"CRANK_AGENT_TOKEN=" + token},
		"--config", cfg, "--scenario", "shell", "--profile", "split", "--json", out)
	if r.code == 0 {
		b, _ := os.ReadFile(out)
		t.Fatalf("exit 0 with one generator at -1e9 req/s, want a failure naming it\n%s\n%s", r.stderr, b)
	}
	mustContain(t, "stderr", r.stderr, "the generator on "+liar+" reported what no run can measure",
		"http/rps/mean: the tool gave -1e+09, which no run can measure", "load report achievedRate: the agent gave -1e+09")
	if strings.Contains(r.stderr, "the generator on "+honest1) || strings.Contains(r.stderr, "the generator on "+honest2) {
		t.Errorf("an honest generator was blamed:\n%s", r.stderr)
	}
	if b, err := os.ReadFile(out); err == nil && strings.Contains(string(b), "-999998000") {
		t.Errorf("the merged figure was written:\n%s", b)
	}
}
