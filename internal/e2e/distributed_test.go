package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sample is one measurement of a timeline, with its time.
type sample struct {
	Name      string    `json:"name"`
	Timestamp time.Time `json:"timestamp"`
	Value     float64   `json:"value"`
}

// jobResult is the part of a service's result the distributed tests read.
type jobResult struct {
	Results      map[string]float64 `json:"results"`
	Measurements [][]sample         `json:"measurements"`
	Environment  map[string]any     `json:"environment"`
}

func readJobs(t *testing.T, path string) map[string]jobResult {
	t.Helper()
	return readJSON[struct {
		JobResults struct {
			Jobs map[string]jobResult `json:"jobs"`
		} `json:"jobResults"`
	}](t, path).JobResults.Jobs
}

// value is the timeline's last sample of name (a load generator's parsed values come once).
func value(tl []sample, name string) (float64, bool) {
	v, ok := 0.0, false
	for _, s := range tl {
		if s.Name == name {
			v, ok = s.Value, true
		}
	}
	return v, ok
}

// firstSample is when the timeline's first sample of name was taken.
func firstSample(tl []sample, name string) time.Time {
	for _, s := range tl {
		if s.Name == name {
			return s.Timestamp
		}
	}
	return time.Time{}
}

// lastSample is when the timeline's last sample of name was taken.
func lastSample(tl []sample, name string) time.Time {
	var at time.Time
	for _, s := range tl {
		if s.Name == name {
			at = s.Timestamp
		}
	}
	return at
}

// TestAgentInfo: /info describes the machine, with the --hardware label.
func TestAgentInfo(t *testing.T) {
	ap := runAgent(t, nil, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), "--hardware", "rack-7 slot 3")
	ap.waitHealthy(t, nil, 15*time.Second)
	before := time.Now()
	info, err := ap.client(t, "", nil).Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.OS != runtime.GOOS || info.Arch != runtime.GOARCH || info.Cores != runtime.NumCPU() ||
		info.MemoryMB <= 0 || info.Version == "" || info.Hardware != "rack-7 slot 3" || info.GoVersion != runtime.Version() {
		t.Errorf("info = %+v", info)
	}
	if cpuinfo, _ := os.ReadFile("/proc/cpuinfo"); strings.Contains(string(cpuinfo), "model name") && info.CPUModel == "" {
		t.Errorf("no CPU model in %+v", info)
	}
	if d := info.Time.Sub(before); d < -time.Second || d > 5*time.Second {
		t.Errorf("agent time %s, now %s", info.Time, before)
	}
}

// otherArch is an architecture this machine is not.
func otherArch() string {
	if runtime.GOARCH == "arm64" {
		return "x64"
	}
	return "arm64"
}

// TestSkippedOnOtherArchitecture: a profile requiring another architecture for the application:
// the agent skips it, crank says so, the run goes on, and the results record it.
func TestSkippedOnOtherArchitecture(t *testing.T) {
	ap := runAgent(t, nil, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
	ap.waitHealthy(t, nil, 15*time.Second)
	cfg := shellJobs(t, t.TempDir(), fmt.Sprintf(`
profiles:
  elsewhere:
    agents:
      application:
        endpoints: [ "%[1]s" ]
        options:
          requiredArchitecture: %[2]s
      load:
        endpoints: [ "%[1]s" ]
`, ap.url, otherArch()))
	out := filepath.Join(t.TempDir(), "out.json")
	r := crankEnv(t, time.Minute, nil, "--config", cfg, "--scenario", "shell", "--profile", "elsewhere", "--json", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	why := fmt.Sprintf("requires architecture %s, this agent is %s", otherArch(), runtime.GOARCH)
	mustContain(t, "stderr", r.stderr, "[application] skipped on "+ap.url+": "+why)
	jobs := readJobs(t, out)
	app := jobs["application"]
	skipped, _ := app.Environment["skipped"].(map[string]any)
	if skipped[ap.url] != why || len(app.Results) != 0 {
		t.Errorf("application result: environment %v, results %v", app.Environment, app.Results)
	}
	if _, ok := jobs["load"].Results["benchmarks/start-time"]; !ok {
		t.Errorf("the load did not run: %v", jobs["load"].Results)
	}
}

// twoLoadAgents starts agents on 127.0.0.2 and 127.0.0.3 (same port) and writes a configuration
// importing the plaintext scenario, with a scenario "twoloads" (load and load2, both wrk) and the
// profile given (fmt verbs: %[1]s the first agent, %[2]s the second).
func twoLoadAgents(t *testing.T, profile string) (cfg, a, b string) {
	port := freePort(t)
	pa := runAgent(t, nil, fmt.Sprintf("http://127.0.0.2:%d", port))
	pb := runAgent(t, nil, fmt.Sprintf("http://127.0.0.3:%d", port))
	pa.waitHealthy(t, nil, 15*time.Second)
	pb.waitHealthy(t, nil, 15*time.Second)
	cfg = writeFile(t, t.TempDir(), "many.yml", fmt.Sprintf(`
imports:
  - %[3]s
scenarios:
  twoloads:
    application:
      job: plaintext
    load:
      job: wrk
      variables: { path: /plaintext, presetHeaders: plaintext }
    load2:
      job: wrk
      variables: { path: /plaintext, presetHeaders: plaintext }
`+profile, pa.url, pb.url, filepath.Join(testEnv.root, "scenarios/plaintext.yml")))
	return cfg, pa.url, pb.url
}

// severalLoads starts twoLoadAgents with the profile "many" (the app on the first agent, load on
// both, load2 on the second) and returns crank's common arguments (runs of 2 s, no warm-up) and
// the two agents' URLs.
func severalLoads(t *testing.T) (common []string, a, b string) {
	t.Helper()
	cfg, a, b := twoLoadAgents(t, `
profiles:
  many:
    variables: { serverAddress: 127.0.0.2 }
    agents:
      application: { endpoints: [ "%[1]s" ] }
      load: { endpoints: [ "%[1]s", "%[2]s" ] }
      load2: { endpoints: [ "%[2]s" ] }
`)
	return []string{"--config", cfg, "--profile", "many", "--variable", "duration=2", "--variable", "warmup=0",
		"--variable", "serverPort=" + strconv.Itoa(freePort(t)), "--variable", "metricsPort=0"}, a, b
}

// twoLoadsRun runs the scenario twoloads (load on agent a, load2 on the other) with common, and
// returns the two services' results, both having measured requests/s.
func twoLoadsRun(t *testing.T, common []string, a string) (l1, l2 jobResult) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	r := crankEnv(t, 3*time.Minute, nil, append(common, "--scenario", "twoloads", "--load.endpoints", a, "--json", out)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	jobs := readJobs(t, out)
	l1, l2 = jobs["load"], jobs["load2"]
	if l1.Results["http/rps/mean"] <= 0 || l2.Results["http/rps/mean"] <= 0 {
		t.Fatalf("rps: load %v, load2 %v", l1.Results["http/rps/mean"], l2.Results["http/rps/mean"])
	}
	return l1, l2
}

// TestSeveralLoadAgents: one app on 127.0.0.2; wrk on 127.0.0.2 and 127.0.0.3 at once, first as
// one service with two endpoints (its rps is the sum of theirs, its p99 the larger), then as two
// services load and load2, started together: their runs overlap.
//
// "Together" is checked as an overlap of their 2 s of CPU samples (each one's first sample before
// the other's last), which a busy core delaying one start by a second does not break, and which
// services started one after the other (2 s apart or more) fail. The first samples within 1 s is
// TestSeveralLoadAgentsStartTogether (make measure).
func TestSeveralLoadAgents(t *testing.T) {
	common, a, b := severalLoads(t)
	t.Run("one service, two endpoints", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.json")
		r := crankEnv(t, 3*time.Minute, nil, append(common, "--scenario", "plaintext", "--json", out)...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		load := readJobs(t, out)["load"]
		if eps := fmt.Sprint(load.Environment["endpoints"]); eps != fmt.Sprintf("[%s %s]", a, b) {
			t.Fatalf("load ran on %s", eps)
		}
		if len(load.Measurements) != 2 {
			t.Fatalf("%d timelines, want 2", len(load.Measurements))
		}
		var sum, maxP99 float64
		for i, tl := range load.Measurements {
			rps, ok1 := value(tl, "http/rps/mean")
			p99, ok2 := value(tl, "http/latency/99")
			if !ok1 || !ok2 || rps <= 0 {
				t.Fatalf("timeline %d: rps %v (%v), p99 %v (%v)", i, rps, ok1, p99, ok2)
			}
			t.Logf("endpoint %d: %.0f req/s, p99 %.2f ms", i, rps, p99)
			sum, maxP99 = sum+rps, math.Max(maxP99, p99)
		}
		if got := load.Results["http/rps/mean"]; math.Abs(got-sum) > 0.5 {
			t.Errorf("service rps %v, want the sum of the endpoints' %v", got, sum)
		}
		if got := load.Results["http/latency/99"]; got != maxP99 {
			t.Errorf("service p99 %v, want the larger endpoint's %v", got, maxP99)
		}
		// wrk gives no histogram to merge: the p99 is said to be an approximation
		split, _ := readSplit(t, out)
		if why := split.Approximate["http/latency/99"]; !strings.Contains(why, "no latency histogram") || len(split.Generators) != 2 {
			t.Errorf("approximate %v, %d generators", split.Approximate, len(split.Generators))
		}
		mustContain(t, "the table", r.stdout, "(approximation: the highest of the 2 generators' values")
		agents, _ := load.Environment["agents"].([]any)
		if len(agents) != 2 {
			t.Fatalf("environment.agents = %v", load.Environment["agents"])
		}
		for i, want := range []string{a, b} {
			env, _ := agents[i].(map[string]any)
			if env["endpoint"] != want || env["os"] != runtime.GOOS || env["arch"] != runtime.GOARCH ||
				env["cores"] != float64(runtime.NumCPU()) || env["agentVersion"] == "" || env["memoryMB"] == nil {
				t.Errorf("environment of endpoint %d: %v", i, env)
			}
		}
	})
	t.Run("load and load2", func(t *testing.T) {
		l1, l2 := twoLoadsRun(t, common, a)
		s1, s2 := firstSample(l1.Measurements[0], "benchmarks/cpu"), firstSample(l2.Measurements[0], "benchmarks/cpu")
		e1, e2 := lastSample(l1.Measurements[0], "benchmarks/cpu"), lastSample(l2.Measurements[0], "benchmarks/cpu")
		if s1.IsZero() || s2.IsZero() || !s1.Before(e2) || !s2.Before(e1) {
			t.Errorf("load and load2 did not run together: samples %s to %s and %s to %s", s1, e1, s2, e2)
		}
		t.Logf("load %.0f req/s, load2 %.0f req/s, starts %s apart", l1.Results["http/rps/mean"], l2.Results["http/rps/mean"], s1.Sub(s2).Abs())
	})
}
