package gate

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
)

func rps(level, noise float64) metricSpec { return metricSpec{measure.RPS, level, noise} }

func TestCompareRPSDown10PercentFails(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 1))
	base := writeResult(t, dir, "base.json", newResult(rng, 5, rps(100000, 0.005)))
	head := writeResult(t, dir, "head.json", newResult(rng, 5, rps(90000, 0.005)))
	code, out, errOut := runCompare(base, head, "--threshold", "5%")
	if code != ExitRegressed {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"[load]", "http/rps/mean", "-10.", "regressed <0.0001 [0.893, 0.903]", "Result: 1 regression(s) beyond 5%: load http/rps/mean."} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// 1 % lower with 0.1 % noise: the interval [0.988, 0.991] lies within ±5 %: unchanged.
func TestCompareRPSDown1PercentPasses(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(2, 2))
	base := writeResult(t, dir, "base.json", newResult(rng, 5, rps(100000, 0.001)))
	head := writeResult(t, dir, "head.json", newResult(rng, 5, rps(99000, 0.001)))
	code, out, _ := runCompare(base, head, "--threshold", "0.05")
	if code != ExitOK || !strings.Contains(flat(out), "-1.08% unchanged <0.0001 [0.988, 0.991]") || !strings.Contains(out, "Result: no regression beyond 5%.") {
		t.Fatalf("exit %d, want 0 with \"unchanged\":\n%s", code, out)
	}
}

func TestCompareBadInputExitsTwoNamingTheFile(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	good := writeResult(t, dir, "base.json", newResult(rng, 0, rps(1000, 0)))
	missing := filepath.Join(dir, "nope.json")
	invalid := filepath.Join(dir, "invalid.json")
	if err := os.WriteFile(invalid, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{good, missing}, missing},
		{[]string{invalid, good}, invalid},
		{[]string{good, good, "--metric", "http/latency/73"}, `unknown metric "http/latency/73"`},
		{[]string{good}, "need a base and at least one result"},
		{[]string{good, good, "--threshold", "5"}, "write 5% or a fraction"},
		{[]string{good, good, "--alpha", "2"}, "--alpha 2"},
	}
	for _, c := range cases {
		code, _, errOut := runCompare(c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func TestCompareIsDirectionAware(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 4))
	lat := func(level float64) metricSpec { return metricSpec{measure.Latency99, level, 0.01} }
	base := writeResult(t, dir, "base.json", newResult(rng, 6, rps(50000, 0.01), lat(2.0)))
	faster := writeResult(t, dir, "faster.json", newResult(rng, 6, rps(60000, 0.01), lat(1.6)))
	slower := writeResult(t, dir, "slower.json", newResult(rng, 6, rps(50000, 0.01), lat(2.4)))

	code, out, _ := runCompare(base, faster)
	if code != ExitOK || strings.Count(flat(out), " improved ") != 2 {
		t.Errorf("RPS up and latency down: exit %d, want 0 and two \"improved\":\n%s", code, out)
	}
	code, out, _ = runCompare(base, slower)
	if code != ExitRegressed || !strings.Contains(out, "Result: 1 regression(s) beyond 5%: load http/latency/99.") {
		t.Errorf("latency up: exit %d, want 1 with a latency regression:\n%s", code, out)
	}
}

// Results without iterations (single runs) give no interval: inconclusive, whatever the change,
// and the report asks for 3 iterations a side.
func TestCompareWithoutIterationsIsInconclusive(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 5))
	cpu := metricSpec{measure.CPU, 80, 0}
	base := writeResult(t, dir, "base.json", newResult(rng, 0, rps(1000, 0), cpu))
	head := writeResult(t, dir, "head.json", newResult(rng, 0, rps(930, 0), cpu))
	code, out, _ := runCompare(base, head)
	if code != ExitInconclusive {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitInconclusive, out)
	}
	for _, want := range []string{"-7.00% inconclusive - -", "+0.00% inconclusive - -",
		"inconclusive: load http/rps/mean: no interval from 1 iteration: 3 iterations on each side at least",
		"Result: no regression shown beyond 5%, but 2 inconclusive: load http/rps/mean, load benchmarks/cpu."} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

func TestCompareNoisyShiftIsInconclusive(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(6, 6))
	base := newResult(rng, 5, rps(1000, 0))
	head := newResult(rng, 5, rps(1000, 0))
	// Interleaved samples: the means differ by 8%, the interval of the ratio is ±28%.
	for i, v := range []float64{800, 1000, 1200, 900, 1100} {
		base.JobResults.Jobs["load"].Iterations[i][measure.RPS] = v
		head.JobResults.Jobs["load"].Iterations[i][measure.RPS] = []float64{700, 950, 1150, 850, 950}[i]
	}
	base.JobResults.Jobs["load"].Results[measure.RPS] = 1000
	head.JobResults.Jobs["load"].Results[measure.RPS] = 920
	code, out, _ := runCompare(writeResult(t, dir, "b.json", base), writeResult(t, dir, "h.json", head))
	if code != ExitInconclusive || !strings.Contains(flat(out), "-8.00% inconclusive 0.45 [0.714, 1.178]") ||
		!strings.Contains(out, "inconclusive: load http/rps/mean: -8.3% ±28.5% at 5 iterations; about 43 per side would tell") {
		t.Errorf("exit %d, want %d, inconclusive and what would tell:\n%s", code, ExitInconclusive, out)
	}
}

func TestCompareMarkdownAndMoreFiles(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	base := writeResult(t, dir, "base.json", newResult(rng, 5, rps(100000, 0.002)))
	same := writeResult(t, dir, "same.json", newResult(rng, 5, rps(100100, 0.002)))
	worse := writeResult(t, dir, "worse.json", newResult(rng, 5, rps(80000, 0.002)))
	md := filepath.Join(dir, "comment.md")
	code, out, errOut := runCompare("--markdown", md, base, same, "--alpha", "0.05", worse)
	if code != ExitRegressed {
		t.Fatalf("exit %d, want 1 (third file regressed):\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "unchanged / regressed") {
		t.Errorf("stdout lacks per-file verdicts:\n%s", out)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"### Performance comparison",
		// two heads, two comparisons that can fail the gate: each at 0.05 / 2 (Bonferroni)
		"| metric | unit | base | same | worse | change | verdict | p | 97.5% CI of ratio |",
		"2 comparisons can fail this gate, so each is tested at alpha 0.05 / 2 (Bonferroni)",
		"| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |",
		"| `http/rps/mean` | ",
		"unchanged / :x: **regressed**",
		"**Result: 1 regression(s) beyond 5%: load http/rps/mean.**",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("markdown lacks %q:\n%s", want, text)
		}
	}
}

func TestCompareThreeIterationsAndMissing(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(10, 10))
	lat := metricSpec{measure.Latency99, 2, 0.01}
	base := writeResult(t, dir, "base.json", newResult(rng, 3, rps(1000, 0.005), lat))
	head := writeResult(t, dir, "head.json", newResult(rng, 3, rps(800, 0.005))) // no latency
	code, out, _ := runCompare(base, head)
	// Three against three are enough for Welch's t on the logs to see a 20% drop in 0.5% noise.
	if code != ExitRegressed || !strings.Contains(flat(out), "-20.17% regressed 0.00037 [0.780, 0.817]") {
		t.Errorf("exit %d, want 1, regressed:\n%s", code, out)
	}
	if !strings.Contains(out, "missing") {
		t.Errorf("latency absent from head is not reported missing:\n%s", out)
	}
}

// TestCompareNotMeasured: a figure one side's tool printed but not to trust (wrk's p99 of 0.00us
// with pipelining) keeps its row in compare, the cell saying why, through the result file, in the
// text and the markdown table; the verdict is "not measured", never missing or a change.
func TestCompareNotMeasured(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	base := newResult(rng, 0, metricSpec{measure.RPS, 1000, 0}, metricSpec{measure.Latency99, 2, 0})
	head := newResult(rng, 0, metricSpec{measure.RPS, 1010, 0})
	why := "wrk printed 0.00us while the 50th percentile is 1.20ms"
	head.JobResults.Jobs["load"].NotMeasured = map[string]string{measure.Latency99: why}
	md := filepath.Join(dir, "c.md")
	code, out, errOut := runCompare(writeResult(t, dir, "base.json", base), writeResult(t, dir, "head.json", head), "--markdown", md)
	if code != ExitInconclusive { // single runs: the RPS cannot tell
		t.Fatalf("exit %d, want %d: %s", code, ExitInconclusive, errOut)
	}
	var line string
	for l := range strings.Lines(out) {
		if strings.HasPrefix(strings.TrimSpace(l), measure.Latency99) {
			line = l
		}
	}
	if !strings.Contains(line, "not measured: "+why) || !strings.Contains(line, string(VerdictNotMeasured)) || strings.Contains(line, string(VerdictMissing)) {
		t.Errorf("p99 row %q: want the head's cell saying why it is not measured, verdict %q\n%s", line, VerdictNotMeasured, out)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "not measured: "+why) {
		t.Errorf("markdown lacks the reason:\n%s", b)
	}
	// Asked for by name, a figure only one side could not measure is known, not refused.
	if code, _, errOut := runCompare(filepath.Join(dir, "head.json"), filepath.Join(dir, "head.json"), "--metric", measure.Latency99); code != 0 {
		t.Errorf("--metric %s on not-measured files: exit %d: %s", measure.Latency99, code, errOut)
	}
}
