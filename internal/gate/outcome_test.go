package gate

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// compareFixed writes base and head (iterations of http/rps/mean) and runs crank compare on them,
// with a markdown file beside; it returns the exit code, stdout and the markdown.
func compareFixed(t *testing.T, base, head []float64, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	md := filepath.Join(dir, "comment.md")
	b := writeResult(t, dir, "base.json", fixedResult(measure.RPS, base...))
	h := writeResult(t, dir, "head.json", fixedResult(measure.RPS, head...))
	code, out, errOut := runCompare(append([]string{b, h, "--markdown", md}, args...)...)
	if errOut != "" {
		t.Errorf("stderr: %s", errOut)
	}
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	return code, out, string(text)
}

// Ten iterations a side, about 20 % noise (standard deviation 19.8 % of the mean), RPS 17 % lower:
// Welch's p on the logs is 0.056 and the interval of the ratio [0.685, 1.005] holds 1 as well as
// changes far past 5 %. It cannot tell: exit 3, and the report says what would.
func TestCompareNoisyDropIsInconclusive(t *testing.T) {
	base := []float64{76, 124, 92, 108, 70, 130, 100, 85, 115, 100}
	head := scaled(83, 1.24, 0.76, 1.08, 0.92, 1.3, 0.7, 1.0, 1.15, 0.85, 1.0)
	code, out, md := compareFixed(t, base, head)
	if code != ExitInconclusive {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitInconclusive, out)
	}
	line := "inconclusive: load http/rps/mean: -17.0% ±21.1% at 10 iterations; about 11 per side would tell"
	for _, want := range []string{"-17.00% inconclusive 0.056 [0.685, 1.005]", line,
		"crank bisect --side-by-side", "Result: no regression shown beyond 5%, but 1 inconclusive: load http/rps/mean."} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"| :grey_question: inconclusive | 0.056 | [0.685, 1.005] |", ":grey_question: " + line + "<br>"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// Equal levels with 0.4 % noise, ten a side: the interval lies well within ±5 %: unchanged, exit 0.
func TestCompareEqualWithLittleNoiseIsUnchanged(t *testing.T) {
	base := scaled(1000, 0.996, 1.004, 1.0, 0.995, 1.005, 1.002, 0.998, 1.0, 1.003, 0.997)
	head := scaled(1000, 1.003, 0.997, 1.005, 0.996, 1.0, 0.998, 1.004, 0.995, 1.002, 1.0)
	code, out, md := compareFixed(t, base, head)
	if code != ExitOK || !strings.Contains(flat(out), "+0.00% unchanged 1 [0.997, 1.003]") ||
		!strings.Contains(out, "Result: no regression beyond 5%.") || strings.Contains(out, "inconclusive: load") {
		t.Errorf("exit %d, want 0 and unchanged within [0.997, 1.003]:\n%s", code, out)
	}
	if !strings.Contains(md, "| unchanged | 1 | [0.997, 1.003] |") {
		t.Errorf("markdown:\n%s", md)
	}
}

// RPS 20 % lower with 1 % noise: regressed, exit 1.
func TestCompareClearRegression(t *testing.T) {
	noise := []float64{0.99, 1.01, 1.0, 0.985, 1.015, 1.005, 0.995, 1.0, 1.01, 0.99}
	code, out, md := compareFixed(t, scaled(1000, noise...), scaled(800, noise[3:]...))
	if code != ExitRegressed || !strings.Contains(flat(out), "-20.00% regressed <0.0001 [0.791, 0.809]") ||
		!strings.Contains(out, "Result: 1 regression(s) beyond 5%: load http/rps/mean.") {
		t.Errorf("exit %d, want 1 and regressed:\n%s", code, out)
	}
	if !strings.Contains(md, ":x: **regressed**") {
		t.Errorf("markdown:\n%s", md)
	}
}

// Two iterations a side make no interval, whatever the change: inconclusive, exit 3.
func TestCompareTwoIterationsIsInconclusive(t *testing.T) {
	code, out, _ := compareFixed(t, []float64{1000, 1010}, []float64{700, 705})
	if code != ExitInconclusive {
		t.Errorf("exit %d, want %d:\n%s", code, ExitInconclusive, out)
	}
	for _, want := range []string{"-30.10% inconclusive - -", "inconclusive: load http/rps/mean: no interval from 2 iterations: 3 iterations on each side at least"} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestCompareTestAndIntervalAgree: the p-value and the interval come from one t, so the interval
// excludes 1 exactly when p < alpha: skewed samples (the old report said "+19.92 % not significant
// 0.18 (welch) [1.008, 1.336]"), noisy and calm ones, at two levels.
func TestCompareTestAndIntervalAgree(t *testing.T) {
	pairs := [][2][]float64{
		{{100, 102, 98, 101, 99, 100, 180}, {125, 121, 119, 118, 122, 120, 123}},
		{{76, 124, 92, 108, 70, 130, 100, 85, 115, 100}, scaled(83, 1.24, 0.76, 1.08, 0.92, 1.3, 0.7, 1.0, 1.15, 0.85, 1.0)},
		{{1000, 1010, 990}, {1040, 1060, 1050}},
		{{5, 5.1, 4.9, 5.05, 4.95}, {3, 6, 4, 8, 5}},
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for range 20 {
		b, h := make([]float64, 6), make([]float64, 6)
		for i := range b {
			b[i], h[i] = 100*(1+0.1*rng.NormFloat64()), 108*(1+0.1*rng.NormFloat64())
		}
		pairs = append(pairs, [2][]float64{b, h})
	}
	agree := 0
	for _, p := range pairs {
		for _, alpha := range []float64{0.05, 0.01} {
			var c Comparison
			estimate(&c, p[0], p[1], CompareOptions{Alpha: alpha})
			excludes := c.CI.Low > 1 || c.CI.High < 1
			if !c.HasCI || excludes != (c.PValue < alpha) || c.CI.Level != 1-alpha {
				t.Errorf("%v vs %v at alpha %g: p %.4f, CI %+v disagree", p[0], p[1], alpha, c.PValue, c.CI)
				continue
			}
			agree++
		}
	}
	if agree != 2*len(pairs) {
		t.Errorf("%d of %d agree", agree, 2*len(pairs))
	}
	// The skewed pair: one outlier in the base. The geometric means differ by 11.4 %, and
	// the test on the logs and its interval both say it is not significant.
	var c Comparison
	estimate(&c, pairs[0][0], pairs[0][1], CompareOptions{Alpha: 0.05})
	if c.PValue < 0.05 || c.CI.Low > 1 || math.Abs(c.Ratio-1.114) > 0.001 || decide(HigherIsBetter, c, 0.05) != VerdictInconclusive {
		t.Errorf("skewed pair: p %.3f, ratio %.4f, CI %+v, %s; want inconclusive, p above 0.05", c.PValue, c.Ratio, c.CI, decide(HigherIsBetter, c, 0.05))
	}
}

// TestDecide: the verdict of each kind of interval of the ratio, threshold 5 % (band [0.952, 1.05]).
func TestDecide(t *testing.T) {
	ci := func(ratio, lo, hi float64) Comparison {
		return Comparison{Ratio: ratio, CI: stats.Interval{Low: lo, High: hi, Level: 0.95}, HasCI: true, Logs: true}
	}
	cases := []struct {
		name string
		dir  Direction
		c    Comparison
		want Verdict
	}{
		{"no interval", HigherIsBetter, Comparison{Ratio: 0.5}, VerdictInconclusive},
		{"past the band, significant", HigherIsBetter, ci(0.8, 0.75, 0.85), VerdictRegressed},
		{"past the band, lower is better", LowerIsBetter, ci(0.8, 0.75, 0.85), VerdictImproved},
		{"past the band, interval into it", LowerIsBetter, ci(1.08, 1.01, 1.15), VerdictRegressed},
		{"past the band, not significant", HigherIsBetter, ci(0.8, 0.6, 1.05), VerdictInconclusive},
		{"within the band", HigherIsBetter, ci(0.98, 0.96, 1.0), VerdictUnchanged},
		{"significant, within the band", HigherIsBetter, ci(1.02, 1.01, 1.03), VerdictUnchanged},
		{"significant, estimate within, interval across the edge", HigherIsBetter, ci(0.96, 0.93, 0.99), VerdictInconclusive},
		{"not significant, across the edge", HigherIsBetter, ci(1.0, 0.94, 1.06), VerdictInconclusive},
		{"unknown direction, past", DirectionUnknown, ci(1.2, 1.1, 1.3), VerdictChanged},
		{"unknown direction, within", DirectionUnknown, ci(1.0, 0.99, 1.01), VerdictUnchanged},
		{"no spread, equal", HigherIsBetter, ci(1, 1, 1), VerdictUnchanged},
		{"no spread, 3 % apart", HigherIsBetter, ci(1.03, 1.03, 1.03), VerdictUnchanged},
		{"no spread, 10 % apart", HigherIsBetter, ci(1.1, 1.1, 1.1), VerdictImproved},
	}
	for _, c := range cases {
		if got := decide(c.dir, c.c, 0.05); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestNeeded: the iterations per side that would likely settle an inconclusive comparison.
func TestNeeded(t *testing.T) {
	logCI := func(d, h float64, nb, nh int) Comparison {
		return Comparison{Test: TestWelch, Logs: true, Ratio: math.Exp(d), HasCI: true, Iterations: [2]int{nb, nh},
			CI: stats.Interval{Low: math.Exp(d - h), High: math.Exp(d + h), Level: 0.95}}
	}
	edge := math.Log(1.05)
	cases := []struct {
		name string
		c    Comparison
		n    int
		at   bool
	}{
		// No change measured, ±10 %: the half-width must fall below ln 1.05: 10 (0.1/0.0488)² = 42.01.
		{"equivalence", logCI(0, 0.1, 10, 10), 43, false},
		// 20 % past, ±25 %: the interval must exclude 1: 10 (0.25/0.2)² = 15.6.
		{"difference", logCI(0.2, 0.25, 10, 10), 16, false},
		// Unequal sides count as their harmonic mean: 2·5·20/25 = 8, 8 (0.1/0.0488)² = 33.6.
		{"unequal sides", logCI(0, 0.1, 5, 20), 34, false},
		{"at the threshold", logCI(edge-0.0005, 0.1, 10, 10), MaxNeeded, true},
		{"far too noisy", logCI(0, 5, 10, 10), MaxNeeded, false},
		{"no interval", Comparison{Iterations: [2]int{2, 2}}, 0, false},
		// On the values (not positive): 1 + difference over the base's mean, ±10 points: 5 (0.1/0.05)² = 20.
		{"values", Comparison{Test: TestWelch, Ratio: 1, HasCI: true, Iterations: [2]int{5, 5}, CI: stats.Interval{Low: 0.9, High: 1.1}}, 20, false},
	}
	for _, c := range cases {
		if n, at := needed(c.c, 0.05); n != c.n || at != c.at {
			t.Errorf("%s: %d (at the threshold %v), want %d (%v)", c.name, n, at, c.n, c.at)
		}
	}
}

// Iterations that never vary: the interval is the estimate itself. Equal: unchanged; 10 % apart:
// the change decides.
func TestCompareWithoutSpread(t *testing.T) {
	same := []float64{1000, 1000, 1000}
	if code, out, _ := compareFixed(t, same, same); code != ExitOK || !strings.Contains(flat(out), "unchanged 1 [1.000, 1.000]") {
		t.Errorf("identical iterations: exit %d, want 0 and unchanged:\n%s", code, out)
	}
	if code, out, _ := compareFixed(t, same, []float64{900, 900, 900}); code != ExitRegressed || !strings.Contains(flat(out), "regressed <0.0001 [0.900, 0.900]") {
		t.Errorf("10 %% lower without spread: exit %d, want 1 and regressed:\n%s", code, out)
	}
}
