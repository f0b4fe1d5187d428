package ghz_test

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/ghz"
	"github.com/crankshaft/crankshaft/internal/parsers/parsertest"
)

func TestGolden(t *testing.T) {
	parsertest.Run(t, ghz.Parser{}, "testdata")
}

// TestValues pins values worked out by hand from the captured JSON (nanoseconds), so that a golden
// file rewritten with -update cannot silently change them.
func TestValues(t *testing.T) {
	cases := map[string]map[string]float64{
		"unary": {
			measure.GRPCRPS: 5315.690980225244, measure.RPS: 5315.690980225244, measure.Requests: 400,
			measure.Errors: 0, measure.LatencyMean: 1.142435, measure.LatencyMax: 9.882115,
			measure.Latency50: 0.729329, measure.Latency75: 1.381192, measure.Latency90: 2.300955,
			measure.Latency95: 2.890405, measure.Latency99: 8.340303,
		},
		// 193 OK and 3 Canceled calls.
		"timed": {
			measure.GRPCRPS: 195.74636790766743, measure.RPS: 195.74636790766743, measure.Requests: 196,
			measure.Errors: 3, measure.LatencyMean: 0.363207, measure.LatencyMax: 2.904957,
			measure.Latency50: 0.214129, measure.Latency75: 0.286839, measure.Latency90: 0.543952,
			measure.Latency95: 1.162756, measure.Latency99: 2.851477,
		},
		// Every call ended Internal: no latency distribution.
		"errorstatus": {
			measure.GRPCRPS: 6182.468318945751, measure.RPS: 6182.468318945751, measure.Requests: 200,
			measure.Errors: 200, measure.LatencyMean: 0.550973,
		},
	}
	parsertest.Values(t, ghz.Parser{}, cases)
}

func TestErrors(t *testing.T) {
	cases := map[string]string{
		"refused": `ghz: no JSON report in output: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`,
		"badcall": "ghz: no JSON report in output: Symbol not found: grpc.testing.BenchmarkService.Nope",
		"nocalls": "ghz: no calls in the report",
		"empty":   "ghz: empty output",
	}
	parsertest.Errors(t, ghz.Parser{}, cases)
}

func TestNameAndFiles(t *testing.T) {
	p := ghz.Parser{}
	if p.Name() != "ghz" || p.Files() != nil {
		t.Errorf("Name() = %q, Files() = %v; want ghz, nil", p.Name(), p.Files())
	}
}
