package gate

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// TestVerdictsOnKnownDistributions draws base and head iterations from known distributions and
// counts significant verdicts: equal distributions rarely, a shift nearly always.
func TestVerdictsOnKnownDistributions(t *testing.T) {
	const trials = 200
	opts := CompareOptions{Threshold: 1e-9, Alpha: 0.05}
	count := func(headLevel float64, verdicts ...Verdict) int {
		rng := rand.New(rand.NewPCG(8, uint64(headLevel)))
		n := 0
		for range trials {
			base := newResult(rng, 8, rps(1000, 0.03))
			head := newResult(rng, 8, rps(headLevel, 0.03))
			rep, err := CompareResults(base, head, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range verdicts {
				if rep.Services[0].Rows[0].Compared[0].Verdict == v {
					n++
				}
			}
		}
		return n
	}
	// Equal: Binomial(200, <=0.05) has mean 10, sd 3.1; 20 is 3.2 sd above.
	equal, down, up := count(1000, VerdictRegressed, VerdictImproved), count(900, VerdictRegressed), count(1100, VerdictImproved)
	t.Logf("of %d: equal %d significant, 10%% down %d regressed, 10%% up %d improved", trials, equal, down, up)
	if equal > 20 {
		t.Errorf("equal distributions: %d of %d significant, want at most 20", equal, trials)
	}
	if down < trials*95/100 { // a 10% drop is 3.3 sigma per iteration
		t.Errorf("RPS 10%% lower: %d of %d regressed, want at least 95%%", down, trials)
	}
	if up < trials*95/100 {
		t.Errorf("RPS 10%% higher: %d of %d improved, want at least 95%%", up, trials)
	}
}

func TestDirectionOf(t *testing.T) {
	cases := []struct {
		name string
		md   *api.Metadata
		want Direction
	}{
		{measure.RPS, nil, HigherIsBetter},
		{measure.WrkRPS, metadataFor(measure.WrkRPS), HigherIsBetter},
		{measure.Latency99, nil, LowerIsBetter},
		{measure.LatencyMean, metadataFor(measure.LatencyMean), LowerIsBetter},
		{measure.CPU, nil, LowerIsBetter},
		{measure.WorkingSet, nil, LowerIsBetter},
		{measure.PrivateMemory, nil, LowerIsBetter},
		{measure.Errors, nil, LowerIsBetter},
		{measure.BadResponses, nil, LowerIsBetter},
		{measure.Requests, nil, DirectionUnknown},
		{"app/throughput", &api.Metadata{Name: "app/throughput", Unit: "req/s"}, HigherIsBetter},
		{"app/gc-pause", &api.Metadata{Name: "app/gc-pause", Unit: "ms"}, LowerIsBetter},
		{"app/gc-pause", nil, DirectionUnknown},
		{"app/lock-wait", &api.Metadata{Unit: "ms/s"}, DirectionUnknown},
		// The catalog decides its own figures, whatever a file's metadata says; a file's direction
		// decides a figure the catalog does not know.
		{measure.GCPause, nil, LowerIsBetter},
		{measure.Throughput, &api.Metadata{Direction: api.DirectionLower}, HigherIsBetter},
		{measure.Goroutines, nil, DirectionUnknown},
		{"app/hits", &api.Metadata{Direction: api.DirectionHigher, Unit: "ms"}, HigherIsBetter},
	}
	for _, c := range cases {
		if got := DirectionOf(c.name, c.md); got != c.want {
			t.Errorf("DirectionOf(%q, %v) = %v, want %v", c.name, c.md != nil, got, c.want)
		}
	}
}

func TestCompareResultsInMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	base := newResult(rng, 0, rps(1000, 0), metricSpec{measure.Errors, 0, 0})
	head := newResult(rng, 0, rps(1000, 0), metricSpec{measure.Errors, 12, 0})
	md := filepath.Join(t.TempDir(), "comment.md")
	var out bytes.Buffer
	rep, err := CompareResults(base, head, CompareOptions{Metrics: []string{measure.Errors}, MarkdownFile: md}, &out)
	if err != nil {
		t.Fatal(err)
	}
	// Errors from 0 to 12: an infinite relative change the bad way.
	if got := rep.Regressions(); len(got) != 1 || got[0] != "load http/requests/errors" || rep.ExitCode() != 1 {
		t.Errorf("regressions %v, exit %d; want the error count", got, rep.ExitCode())
	}
	if !strings.Contains(out.String(), "+inf") || strings.Contains(out.String(), measure.RPS) {
		t.Errorf("text report:\n%s", out.String())
	}
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "| `http/requests/errors` | count | 0 | 12 | +inf |") {
		t.Errorf("markdown (%v):\n%s", err, b)
	}
	if _, err := CompareResults(base, head, CompareOptions{Metrics: []string{"nope"}}, nil); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown metric: err = %v", err)
	}
}

func TestParseInterleaved(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var metrics stringList
	th := fraction(0)
	fs.Var(&metrics, "metric", "")
	fs.Var(&th, "threshold", "")
	pos, err := parseInterleaved(fs, []string{"a.json", "--metric", "x", "b.json", "--threshold=2.5%", "c.json", "--metric", "y", "--", "-d.json"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pos, " ") != "a.json b.json c.json -d.json" || metrics.String() != "x,y" || th != 0.025 {
		t.Errorf("positionals %v, metrics %v, threshold %v", pos, metrics, th)
	}
	for in, want := range map[string]float64{"5%": 0.05, "0.05": 0.05, " 12.5% ": 0.125, "1": 1} {
		var f fraction
		if err := f.Set(in); err != nil || float64(f) != want {
			t.Errorf("fraction %q = %v (%v), want %v", in, f, err, want)
		}
	}
	for in, want := range map[string]string{"5": `"5" is ambiguous: write 5%`, "-1%": `"-1%" is negative`, "abc": `"abc" is not a number`} {
		var f fraction
		if err := f.Set(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("fraction %q: %v, want %q", in, err, want)
		}
	}
}
