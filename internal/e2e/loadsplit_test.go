package e2e

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The split lab: crank, the application and three load agents, each a machine of its own.
const (
	splitCtl, splitApp = "10.40.0.100", "10.40.0.11"
)

var splitLoads = []string{"10.40.0.21", "10.40.0.22", "10.40.0.23"}

// splitRate is the total rate the failure tests ask for (light: they judge a lost or starved
// generator, not throughput).
const splitRate = 3000

// splitLab starts the lab: the application agent and the three load agents, each load agent
// with its generators' latency log in a folder of the test's (loadgen.LatencyLogEnv). It returns
// the configuration (the plaintext scenario under the built-in generator, with a profile
// "split" placing the services) and the latency logs' paths, one per load agent.
func splitLab(t *testing.T) (lab *hostLab, cfg string, logs []string, agents []*agentProc) {
	t.Helper()
	lab = newHostLab(t, append([]string{splitCtl, splitApp}, splitLoads...)...)
	lab.agent(t, splitApp)
	logDir := t.TempDir()
	var eps []string
	for i, addr := range splitLoads {
		logs = append(logs, filepath.Join(logDir, fmt.Sprintf("gen%d.txt", i+1)))
		ap := runAgent(t, append(in(lab.hosts[addr]), "env", "CRANK_LOAD_LATENCY_LOG="+logs[i]), "http://"+addr+":5010", "--token", testToken)
		ap.waitLogged(t, "agent listening", 30*time.Second)
		agents = append(agents, ap)
		eps = append(eps, fmt.Sprintf("%q", "http://"+addr+":5010"))
	}
	cfg = writeFile(t, t.TempDir(), "split.yml", fmt.Sprintf(`
imports:
  - %s
profiles:
  split:
    variables: { serverAddress: %s }
    agents:
      application: { endpoints: [ "http://%s:5010" ] }
      load: { endpoints: [ %s ] }
`, filepath.Join(testEnv.root, "scenarios/plaintext.yml"), splitApp, splitApp, strings.Join(eps, ", ")))
	return lab, cfg, logs, agents
}

// splitArgs run the plaintext scenario with the built-in generator at a total rate, unpipelined.
func splitArgs(cfg, out string, rate, conns int, duration string) []string {
	return []string{"--config", cfg, "--profile", "split", "--scenario", "plaintext", "--load.job", "builtin",
		"--json", out, "--variable", "rate=" + strconv.Itoa(rate), "--variable", "connections=" + strconv.Itoa(conns),
		"--variable", "pipeline=1", "--variable", "duration=" + duration, "--variable", "warmup=1", "--variable", "threads=1"}
}

// generator is a load's per-generator entry in the result JSON.
type generator struct {
	Endpoint   string             `json:"endpoint"`
	Share      map[string]int     `json:"share"`
	Results    map[string]float64 `json:"results"`
	Start      time.Time          `json:"start"`
	End        time.Time          `json:"end"`
	FellBehind bool               `json:"fellBehind"`
	Failed     string             `json:"failed"`
}

// splitResult is the load's result with its generators.
type splitResult struct {
	Results     map[string]float64 `json:"results"`
	Generators  []generator        `json:"generators"`
	Approximate map[string]string  `json:"approximate"`
}

func readSplit(t *testing.T, path string) (splitResult, []string) {
	t.Helper()
	r := readJSON[struct {
		Failures   []string `json:"failures"`
		JobResults struct {
			Jobs map[string]splitResult `json:"jobs"`
		} `json:"jobResults"`
	}](t, path)
	return r.JobResults.Jobs["load"], r.Failures
}
