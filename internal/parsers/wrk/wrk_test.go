package wrk_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/parsertest"
	"github.com/crankshaft/crankshaft/internal/parsers/wrk"
)

func TestGolden(t *testing.T) {
	parsertest.Run(t, wrk.Parser{}, "testdata")
}

// TestValues pins a few values read by hand from the captured outputs, so that a golden file
// rewritten with -update cannot silently change them.
func TestValues(t *testing.T) {
	cases := map[string]map[string]float64{
		"plaintext": {
			measure.WrkRPS: 77882.95, measure.RPS: 77882.95, measure.Requests: 85651,
			measure.LatencyMean: 0.58324, measure.LatencyMax: 16.29, measure.Latency50: 0.078,
			measure.Latency75: 0.174, measure.Latency90: 2.04, measure.Latency99: 6.99,
			measure.BadResponses: 0, measure.Errors: 0, measure.Throughput: 8.54,
		},
		"mixed": {
			measure.WrkRPS: 30064.05, measure.RPS: 30064.05, measure.Requests: 31934,
			measure.LatencyMean: 1.05, measure.LatencyMax: 36.9, measure.Latency50: 0.112,
			measure.Latency75: 0.272, measure.Latency90: 1.62, measure.Latency99: 18.29,
			measure.BadResponses: 13686, measure.Errors: 7984, measure.Throughput: 4.26,
		},
		"seconds": {
			measure.WrkRPS: 1, measure.RPS: 1, measure.Requests: 2,
			measure.LatencyMean: 1100, measure.LatencyMax: 1100, measure.Latency50: 1100,
			measure.Latency75: 1100, measure.Latency90: 1100, measure.Latency99: 1100,
			measure.BadResponses: 0, measure.Errors: 0, measure.Throughput: 119.72 / (1024 * 1024),
		},
		"nolatency": {
			measure.WrkRPS: 70434.02, measure.RPS: 70434.02, measure.Requests: 77467,
			measure.LatencyMean: 0.5008, measure.LatencyMax: 9.85,
			measure.BadResponses: 0, measure.Errors: 0, measure.Throughput: 7.72,
		},
	}
	for _, c := range cases { // crank's wrk job reports each value under a wrk/ name as well
		for alias, name := range measure.ToolAliases("wrk") {
			if v, ok := c[name]; ok {
				c[alias] = v
			}
		}
	}
	parsertest.Values(t, wrk.Parser{}, cases)
}

func TestErrorsQuoteWrk(t *testing.T) {
	cases := map[string]string{
		"refused":   "wrk: run failed: unable to connect to 127.0.0.1:1 Connection refused",
		"empty":     "wrk: empty output",
		"dropped":   "wrk: no responses (Socket errors: connect 0, read 19020, write 0, timeout 0)",
		"badscript": "wrk: script not loaded (wrk ran without it): /tmp/capture/bad.lua: /tmp/capture/bad.lua:2: unexpected symbol near '='",
	}
	parsertest.Errors(t, wrk.Parser{}, cases)
}

func TestFiles(t *testing.T) {
	p := wrk.Parser{}
	if p.Name() != "wrk" {
		t.Errorf("Name() = %q", p.Name())
	}
	want, err := os.ReadFile(filepath.Join("scripts", "pipeline.lua"))
	if err != nil {
		t.Fatal(err)
	}
	files := p.Files()
	if len(files) != 1 || string(files[wrk.PipelineScript]) != string(want) {
		t.Errorf("Files() = %d files, %s = %q; want only the script on disk", len(files), wrk.PipelineScript, files[wrk.PipelineScript])
	}
	files[wrk.PipelineScript][0] = 'X'
	if p.Files()[wrk.PipelineScript][0] == 'X' {
		t.Error("Files() shares its bytes between calls")
	}
}

// TestNotMeasured: the percentiles wrk printed as 0.00us in a pipelined run are not values but
// said to be not measured, with why; a run without them says nothing.
func TestNotMeasured(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "pipeline", "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nm := wrk.Parser{}.NotMeasured(f)
	why, ok := nm[measure.Latency99]
	if !ok || !strings.Contains(why, "wrk printed 0.00us though its latencies reach") {
		t.Errorf("not measured %v, want http/latency/99 with why", nm)
	}
	g, err := os.Open(filepath.Join("testdata", "plaintext", "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if nm := (wrk.Parser{}).NotMeasured(g); len(nm) != 0 {
		t.Errorf("an unpipelined run: not measured %v, want none", nm)
	}
}
