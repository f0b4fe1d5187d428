package bombardier_test

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/bombardier"
	"github.com/crankshaft/crankshaft/internal/parsers/parsertest"
)

func TestGolden(t *testing.T) {
	parsertest.Run(t, bombardier.Parser{}, "testdata")
}

// TestValues pins values worked out by hand from the captured JSON, so that a golden file
// rewritten with -update cannot silently change them.
func TestValues(t *testing.T) {
	cases := map[string]map[string]float64{
		// req2xx 69372, timeTakenSeconds 1.00022513, latency in us.
		"plaintext": {
			measure.BombardierRPS: 69365.17713926519, measure.RPS: 69356.39, measure.Requests: 69372,
			measure.BadResponses: 0, measure.Errors: 0,
			measure.LatencyMean: 0.114276, measure.LatencyMax: 16.27, measure.Latency50: 0.081,
			measure.Latency75: 0.128, measure.Latency90: 0.196, measure.Latency99: 0.585,
			// p95 263 us; rps.max; bytesRead 7977780 / 1.00022513 s / 2^20 = 7.606 MiB/s.
			measure.Latency95: 0.263, measure.RPSMax: 84358.47923122426, measure.Throughput: 7.61,
		},
		// 2xx 18885, 4xx 3147, 5xx 11016, others 10 of which 10 errors, in 1.00084182s.
		"mixed": {
			measure.BombardierRPS: 33037.852920455785, measure.RPS: 33020.2, measure.Requests: 33048,
			measure.BadResponses: 14163, measure.Errors: 10,
			measure.LatencyMean: 0.240818, measure.LatencyMax: 6.816, measure.Latency50: 0.162,
			measure.Latency75: 0.282, measure.Latency90: 0.496, measure.Latency99: 1.41,
			measure.Latency95: 0.684, measure.RPSMax: 42825.03374161869, measure.Throughput: 4.68,
		},
		// -r 1000 (the spec's rate: load/asked-rate): 1949 responses in 2.000708251 s, 974.16 req/s.
		"rate": {
			measure.LoadAskedRate: 1000, measure.BombardierRPS: 964.4518359027322, measure.RPS: 974.16,
			measure.Requests: 1949, measure.BadResponses: 0, measure.Errors: 0,
			measure.LatencyMean: 0.733889, measure.LatencyMax: 22.593, measure.Latency50: 0.381,
			measure.Latency75: 0.561, measure.Latency90: 0.867, measure.Latency95: 1.435, measure.Latency99: 9.831,
			measure.RPSMax: 1878.5239626494072, measure.Throughput: 0.09,
		},
	}
	for _, c := range cases { // crank's bombardier job reports each value under a bombardier/ name as well
		for alias, name := range measure.ToolAliases("bombardier") {
			if v, ok := c[name]; ok {
				c[alias] = v
			}
		}
	}
	parsertest.Values(t, bombardier.Parser{}, cases)
}

func TestErrors(t *testing.T) {
	cases := map[string]string{
		"refused": "bombardier: no responses, 81467 errors (dial tcp 127.0.0.1:1: connect: connection refused)",
		"badflag": `bombardier: no JSON result in output: time: unknown unit "x" in duration "1x"`,
		"empty":   "bombardier: empty output",
	}
	parsertest.Errors(t, bombardier.Parser{}, cases)
}

func TestNameAndFiles(t *testing.T) {
	p := bombardier.Parser{}
	if p.Name() != "bombardier" || p.Files() != nil {
		t.Errorf("Name() = %q, Files() = %v; want bombardier, nil", p.Name(), p.Files())
	}
}
