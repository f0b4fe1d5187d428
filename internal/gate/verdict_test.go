package gate

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/flags"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestVerdictsOnKnownDistributions draws base and head iterations from known distributions and
// counts significant verdicts: equal distributions rarely, a shift nearly always.
func TestVerdictsOnKnownDistributions(t *testing.T) {
	const trials = 200
	opts := CompareOptions{Threshold: 1e-9, Alpha: 0.05}
	count := func(headLevel float64, verdicts ...Verdict) int {
		return countVerdicts(t, trials, headLevel, opts, verdicts...)
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

// TestVerdictsAtTheDefaultThreshold: the same draws (8 a side, 3 % noise: intervals of about ±3 %)
// judged at 5 %: equal levels are shown unchanged more often than not (the rest inconclusive) and
// never regressed; 10 % lower regressed; a change at the threshold itself is regressed about half
// the time (its estimate past the threshold), else inconclusive.
func TestVerdictsAtTheDefaultThreshold(t *testing.T) {
	const trials = 200
	opts := CompareOptions{Alpha: 0.05}.withDefaults()
	count := func(headLevel float64, v Verdict) int { return countVerdicts(t, trials, headLevel, opts, v) }
	unchanged, wrong := count(1000, VerdictUnchanged), count(1000, VerdictRegressed)+count(1000, VerdictImproved)
	down := count(900, VerdictRegressed)
	atEdge, edgeRegressed := count(1000/1.05, VerdictInconclusive), count(1000/1.05, VerdictRegressed)
	t.Logf("of %d: equal %d unchanged, %d regressed or improved; 10%% down %d regressed; at the threshold %d inconclusive, %d regressed",
		trials, unchanged, wrong, down, atEdge, edgeRegressed)
	if unchanged < trials/2 || wrong > 0 {
		t.Errorf("equal: %d of %d unchanged and %d regressed or improved, want at least half and none", unchanged, trials, wrong)
	}
	if down < trials*95/100 {
		t.Errorf("10%% lower: %d of %d regressed, want at least 95%%", down, trials)
	}
	if atEdge < trials*4/10 || edgeRegressed > trials*6/10 {
		t.Errorf("at the threshold: %d inconclusive and %d regressed of %d, want at least 40%% and at most 60%%", atEdge, edgeRegressed, trials)
	}
}

// countVerdicts compares base iterations at 1000 with head iterations at headLevel (8 a side, 3 %
// noise), trials times, and counts the verdicts given.
func countVerdicts(t *testing.T, trials int, headLevel float64, opts CompareOptions, verdicts ...Verdict) int {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, uint64(headLevel)))
	n := 0
	for range trials {
		base := newResult(rng, 8, rps(1000, 0.03))
		head := newResult(rng, 8, rps(headLevel, 0.03))
		rep, err := CompareResults(base, head, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(verdicts, rep.Services[0].Rows[0].Compared[0].Verdict) {
			n++
		}
	}
	return n
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
	errs := func(n float64) *results.Result {
		return repeated(3, func() *results.Result { return newResult(rng, 0, rps(1000, 0), metricSpec{measure.Errors, n, 0}) })
	}
	base, head := errs(0), errs(12)
	md := filepath.Join(t.TempDir(), "comment.md")
	var out bytes.Buffer
	rep, err := CompareResults(base, head, CompareOptions{Metrics: []string{measure.Errors}, MarkdownFile: md}, &out)
	if err != nil {
		t.Fatal(err)
	}
	// Errors from 0 to 12 in each of three iterations: an infinite relative change the bad way,
	// judged on the values (0 is no ratio scale).
	if got := rep.Regressions(); len(got) != 1 || got[0] != "load http/requests/errors" || rep.ExitCode() != ExitRegressed {
		t.Errorf("regressions %v, exit %d; want the error count", got, rep.ExitCode())
	}
	if !strings.Contains(flat(out.String()), "+inf regressed <0.0001 [+Inf, +Inf]") || strings.Contains(out.String(), measure.RPS) ||
		!strings.Contains(out.String(), "Rows with a value not above 0: Welch's t-test on the values") {
		t.Errorf("text report:\n%s", out.String())
	}
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "| `http/requests/errors` | count | 0 | 12 | +inf |") {
		t.Errorf("markdown (%v):\n%s", err, b)
	}
	// The same from single runs: no interval, inconclusive.
	one, err := CompareResults(newResult(rng, 0, metricSpec{measure.Errors, 0, 0}), newResult(rng, 0, metricSpec{measure.Errors, 12, 0}),
		CompareOptions{Metrics: []string{measure.Errors}}, nil)
	if got := one.Inconclusive(); err != nil || len(got) != 1 || got[0] != "load http/requests/errors" || one.ExitCode() != ExitInconclusive {
		t.Errorf("single runs: inconclusive %v, exit %d (%v); want the error count, %d", got, one.ExitCode(), err, ExitInconclusive)
	}
	if _, err := CompareResults(base, head, CompareOptions{Metrics: []string{"nope"}}, nil); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown metric: err = %v", err)
	}
}

func TestParseInterleaved(t *testing.T) {
	fs := &flags.Set{}
	var metrics []string
	th := fraction(0)
	fs.Strings(&metrics, "", "metric")
	fs.Var(&th, "", "threshold")
	pos, err := fs.Parse([]string{"a.json", "--metric", "x", "b.json", "--threshold=2.5%", "c.json", "--metric", "y", "--", "-d.json"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pos, " ") != "a.json b.json c.json -d.json" || strings.Join(metrics, ",") != "x,y" || th != 0.025 {
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
