package builtin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/drivers/builtin"
	"github.com/crankshaft/crankshaft/internal/drivers/drivertest"
	"github.com/crankshaft/crankshaft/internal/measure"
)

func TestGolden(t *testing.T) {
	drivertest.Run(t, builtin.Parser{}, "testdata")
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
	}
	for name, want := range cases {
		got := drivertest.Parse(t, builtin.Parser{}, filepath.Join("testdata", name, "output.txt"))
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
