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
// run fails naming that agent and the figure, and the rest is written as for a lost generator:
// the load's figures are the two honest generators', the liar listed as failed with why (issue 41,
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
	if r.code != 1 {
		b, _ := os.ReadFile(out)
		t.Fatalf("exit %d with one generator at -1e9 req/s, want 1 naming it\n%s\n%s", r.code, r.stderr, b)
	}
	said := `service "load": the generator on ` + liar + " reported what no run can measure"
	mustContain(t, "stderr", r.stderr, said,
		"http/rps/mean: the tool gave -1e+09, which no run can measure", "load report achievedRate: the agent gave -1e+09")
	if strings.Contains(r.stderr, "the generator on "+honest1+" reported") || strings.Contains(r.stderr, "the generator on "+honest2+" reported") {
		t.Errorf("an honest generator was blamed:\n%s", r.stderr)
	}
	load, failures := readSplit(t, out)
	if len(failures) != 1 || !strings.HasPrefix(failures[0], said) {
		t.Errorf("failures %q, want the liar named", failures)
	}
	if got := load.Results[measure.RPS]; got != 2000 {
		t.Errorf("http/rps/mean %v, want 2000, the honest generators' sum", got)
	}
	failed := map[string]string{}
	for _, g := range load.Generators {
		failed[g.Endpoint] = g.Failed
	}
	if len(failed) != 3 || failed[honest1] != "" || failed[honest2] != "" || !strings.Contains(failed[liar], "the tool gave -1e+09") {
		t.Errorf("generators %q, want the liar alone failed, with why", failed)
	}
}
