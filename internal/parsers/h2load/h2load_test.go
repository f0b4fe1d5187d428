package h2load_test

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/h2load"
	"github.com/crankshaft/crankshaft/internal/parsers/parsertest"
)

func TestGolden(t *testing.T) {
	parsertest.Run(t, h2load.Parser{}, "testdata")
}

// TestValues pins values read by hand from the captured outputs, so that a golden file rewritten
// with -update cannot silently change them.
func TestValues(t *testing.T) {
	cases := map[string]map[string]float64{
		"plaintext": {
			measure.RPS: 54018, measure.Requests: 54018, measure.BadResponses: 0, measure.Errors: 0,
			measure.LatencyMean: 1.43, measure.LatencyMax: 8.95,
		},
		// 53760 done, 29182 failed, 10753 errored.
		"mixed": {
			measure.RPS: 43007, measure.Requests: 43007, measure.BadResponses: 18429, measure.Errors: 10753,
			measure.LatencyMean: 1.48, measure.LatencyMax: 11.85,
		},
		"h1": {
			measure.RPS: 68322, measure.Requests: 68322, measure.BadResponses: 0, measure.Errors: 0,
			measure.LatencyMean: 0.116, measure.LatencyMax: 19.13,
		},
		"seconds": {
			measure.RPS: 1, measure.Requests: 2, measure.BadResponses: 0, measure.Errors: 0,
			measure.LatencyMean: 1100, measure.LatencyMax: 1100,
		},
		// Every call failed with grpc-status 13, invisible to h2load.
		"grpcstatus": {
			measure.RPS: 62864, measure.Requests: 62864, measure.BadResponses: 0, measure.Errors: 0,
			measure.LatencyMean: 0.298, measure.LatencyMax: 24.5,
		},
	}
	for _, c := range cases { // crank's h2load job reports each value under a h2load/ name as well
		for alias, name := range measure.ToolAliases("h2load") {
			if v, ok := c[name]; ok {
				c[alias] = v
			}
		}
	}
	parsertest.Values(t, h2load.Parser{}, cases)
}

func TestErrors(t *testing.T) {
	cases := map[string]string{
		"refused": "h2load: no responses (requests: 0 total, 0 started, 0 done, 0 succeeded, 0 failed, 0 errored, 0 timeout)",
		"badflag": "h2load: run failed: -D: value error bogus",
		"empty":   "h2load: empty output",
	}
	parsertest.Errors(t, h2load.Parser{}, cases)
}

func TestNameAndFiles(t *testing.T) {
	p := h2load.Parser{}
	if p.Name() != "h2load" || p.Files() != nil {
		t.Errorf("Name() = %q, Files() = %v; want h2load, nil", p.Name(), p.Files())
	}
}
