package builtin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/builtin"
	"github.com/crankshaft/crankshaft/internal/parsers/parsertest"
)

func TestGolden(t *testing.T) {
	parsertest.Run(t, builtin.Parser{}, "testdata")
}

// TestValues pins values read by hand from the captured outputs, so that a golden file rewritten
// with -update cannot silently change them.
func TestValues(t *testing.T) {
	cases := map[string]map[string]float64{
		"non2xx":    {measure.Requests: 65250, measure.BadResponses: 65250, measure.Errors: 0},
		"crankjson": {measure.Requests: 66193, measure.Latency99: 0.213, measure.LatencyMax: 3.283},
		"pipeline":  {measure.Requests: 251592, measure.Latency50: 5.587, measure.BadResponses: 0},
		// stopped by SIGINT 2.4 s into a 10 s run: what it counted until then
		"interrupted": {measure.Requests: 2641552, measure.Latency99: 2.921},
		// --rate 2000: the generator reports its p95, and the parser the rate asked
		"p95":  {measure.Latency95: 40.863, measure.LoadAskedRate: 2000},
		"rate": {measure.LoadAskedRate: 5000},
	}
	for name, want := range cases {
		got := parsertest.Parse(t, builtin.Parser{}, filepath.Join("testdata", name, "output.txt"))
		for k, v := range want {
			if got.Measurements[k] != v {
				t.Errorf("%s: %s = %v, want %v", name, k, got.Measurements[k], v)
			}
		}
	}
}

func TestParser(t *testing.T) {
	p := builtin.Parser{}
	if p.Name() != "builtin" || p.Files() != nil {
		t.Errorf("Name %q, Files %v", p.Name(), p.Files())
	}
	cases := map[string]string{
		"":                           "builtin: empty output",
		"hello\n":                    "no JSON results",
		`{"results":{"x":1}}` + "\n": "has no http/requests",
		`{"error":"boom"}` + "\n":    "builtin: boom",
	}
	for in, want := range cases {
		if _, err := p.Parse(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error %v, want %q", in, err, want)
		}
	}
}

// TestTimeline: the report's per-second timeline becomes one requests-per-second, one median and
// one 99th percentile latency sample per second, stamped with the end of its second (captured
// from a 3 s run: 3 seconds, p50 0.031, 0.032, 0.031 ms and p99 0.175, 0.176, 0.159 ms).
func TestTimeline(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "timeline", "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := builtin.Parser{}.Timeline(f)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]api.Measurement{}
	for _, m := range ms {
		byName[m.Name] = append(byName[m.Name], m)
	}
	if len(ms) != 9 || len(byName) != 3 {
		t.Fatalf("%d samples of %d names, want 3 of each of 3: %+v", len(ms), len(byName), ms)
	}
	rps := byName[measure.BuiltinRPSPerSecond]
	for i, m := range rps {
		if m.Value < 150000 || (i > 0 && !m.Timestamp.After(rps[i-1].Timestamp)) {
			t.Errorf("requests/s sample %d: %+v", i, m)
		}
	}
	for name, want := range map[string][]float64{
		measure.BuiltinLatency50PerSecond: {0.031, 0.032, 0.031},
		measure.BuiltinLatency99PerSecond: {0.175, 0.176, 0.159},
	} {
		for i, m := range byName[name] {
			if m.Value != want[i] || !m.Timestamp.Equal(rps[i].Timestamp) {
				t.Errorf("%s sample %d: %+v, want %g at %v", name, i, m, want[i], rps[i].Timestamp)
			}
		}
	}
	none, err := builtin.Parser{}.Timeline(strings.NewReader("crank load: error: refused\n"))
	if err != nil || len(none) != 0 {
		t.Errorf("an output without a report: %v, %v; want no samples", none, err)
	}
}

// TestLoadReport: the window, the rates and the histogram come from the JSON line.
func TestLoadReport(t *testing.T) {
	line := `{"results":{"http/requests":10},"report":{"start":"2026-01-02T03:04:05.5Z","elapsed":2.25,"rps":997.5,"options":{"rate":1000}},"histogram":"HISTw"}` + "\n"
	rep, err := builtin.Parser{}.LoadReport(strings.NewReader("summary\n" + line))
	if err != nil || rep == nil {
		t.Fatalf("%v, %v", rep, err)
	}
	if rep.Start.Format(time.RFC3339Nano) != "2026-01-02T03:04:05.5Z" || rep.End.Sub(rep.Start) != 2250*time.Millisecond ||
		rep.AskedRate != 1000 || rep.AchievedRate != 997.5 || rep.Histogram != "HISTw" {
		t.Errorf("report %+v", rep)
	}
	if rep, err := (builtin.Parser{}).LoadReport(strings.NewReader("crank load: error: x\n")); rep != nil || err != nil {
		t.Errorf("no JSON: %+v, %v", rep, err)
	}
}

// TestWarnings: a run that took epoll because io_uring was refused says so, with the reason
// (bounded); a run on io_uring, or on epoll asked for, says nothing.
func TestWarnings(t *testing.T) {
	fallback := `{"results":{"http/requests":10},"report":{"io":"epoll","ioFallback":"io_uring_setup: operation not permitted (EPERM)"}}` + "\n"
	got := builtin.Parser{}.Warnings(strings.NewReader("  I/O: epoll\n" + fallback))
	if want := "crank load ran on epoll, not io_uring: io_uring_setup: operation not permitted (EPERM)"; len(got) != 1 || got[0] != want {
		t.Errorf("fallback: %q, want [%q]", got, want)
	}
	for _, line := range []string{`{"results":{"http/requests":10},"report":{"io":"uring"}}`, `{"results":{"http/requests":10},"report":{"io":"epoll"}}`, "crank load: error: x"} {
		if got := (builtin.Parser{}).Warnings(strings.NewReader(line + "\n")); got != nil {
			t.Errorf("%s: %q, want none", line, got)
		}
	}
	long := `{"results":{"http/requests":10},"report":{"io":"epoll","ioFallback":"` + strings.Repeat("x", 5000) + `"}}` + "\n"
	if got := (builtin.Parser{}).Warnings(strings.NewReader(long)); len(got) != 1 || len(got[0]) > 600 {
		t.Errorf("a 5000-byte reason: %d warnings, %d bytes, want one under 600", len(got), len(got[0]))
	}
}
