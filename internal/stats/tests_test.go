package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g (±%g)", what, got, want, tol)
	}
}

func TestStudentTAgainstClosedForms(t *testing.T) {
	for _, x := range []float64{0, 0.3, 1, 2.5, 7, 40} {
		// df = 1 is the Cauchy distribution, df = 2 has a closed form too.
		near(t, "p(df=1)", studentTTwoSided(x, 1), 1-2/math.Pi*math.Atan(x), 1e-12)
		near(t, "p(df=2)", studentTTwoSided(x, 2), 1-x/math.Sqrt(2+x*x), 1e-12)
	}
	// Large df tends to the normal: 1.959964 is its two-sided 5% point.
	near(t, "p(df=1e6)", studentTTwoSided(1.959964, 1e6), 0.05, 1e-5)
}

func TestWelchT(t *testing.T) {
	// Reference values computed independently (numerical integration of the t density).
	r, err := WelchT([]float64{1, 2, 3, 4}, []float64{2, 4, 6, 8, 10})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t", r.T, 2.2514363231593695, 1e-12)
	near(t, "df", r.DF, 5.520787746170677, 1e-12)
	near(t, "p", r.PValue, 0.06913359319244942, 1e-9)

	same, _ := WelchT([]float64{5, 5, 5}, []float64{5, 5})
	apart, _ := WelchT([]float64{5, 5, 5}, []float64{6, 6})
	if same.PValue != 1 || apart.PValue != 0 {
		t.Errorf("degenerate samples: p = %g (equal) and %g (different), want 1 and 0", same.PValue, apart.PValue)
	}
	if _, err := WelchT([]float64{1}, []float64{1, 2}); err == nil || !strings.Contains(err.Error(), "need at least 2 values per sample, have 1 and 2") {
		t.Errorf("a one-value sample: %v", err)
	}
}

func TestPairedT(t *testing.T) {
	// Differences 1, 2, 1, 3: t = 1.75 / sqrt(0.91667/4); p from the closed form of 3 degrees of
	// freedom, 1 - 2/pi (atan(t/sqrt3) + sqrt3 t / (3 + t^2)).
	x, y := []float64{10, 20, 30, 40}, []float64{11, 22, 31, 43}
	r, err := PairedT(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t", r.T, 3.6556307750696546, 1e-12)
	near(t, "df", r.DF, 3, 0)
	near(t, "p", r.PValue, 0.035352847002517396, 1e-9)
	// The same values unpaired: the spread between pairs hides the change.
	if w, _ := WelchT(x, y); w.PValue < 0.5 {
		t.Errorf("Welch's p of the same values = %g, want above 0.5 (the pairing is what tells)", w.PValue)
	}
	same, _ := PairedT([]float64{1, 2}, []float64{1, 2}, 0)
	apart, _ := PairedT([]float64{1, 2}, []float64{2, 3}, 0)
	if same.PValue != 1 || apart.PValue != 0 {
		t.Errorf("no spread in the differences: p = %g (none) and %g (all 1), want 1 and 0", same.PValue, apart.PValue)
	}
	if _, err := PairedT([]float64{1, 2}, []float64{1, 2, 3}, 0); err == nil || !strings.Contains(err.Error(), "same length, at least 2, have 2 and 3") {
		t.Errorf("samples of different lengths: %v", err)
	}
	// One degree of freedom spent before (a fitted position): the spread over 2, t over 2 degrees
	// of freedom: t = 1.75 / sqrt(2.75/2/4) = 2.9848; p = 1 - t/sqrt(2+t^2) for 2.
	f, err := PairedT(x, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t, fitted 1", f.T, 1.75/math.Sqrt(2.75/2/4), 1e-12)
	near(t, "p, fitted 1", f.PValue, 1-f.T/math.Sqrt(2+f.T*f.T), 1e-9)
	if _, err := PairedT(x[:2], y[:2], 1); err == nil || !strings.Contains(err.Error(), "at least 3, have 2 and 2") {
		t.Errorf("too few for the fitted: %v", err)
	}
}

func TestWelchDifference(t *testing.T) {
	// Equal spreads and sizes: Welch's degrees of freedom are 2(n-1) = 4, se = sqrt(2/3), and the
	// 95 % interval is 2 ± t(0.975, 4) se, t(0.975, 4) = 2.7764451051977987 (tables).
	d, err := WelchDifference([]float64{1, 2, 3}, []float64{3, 4, 5}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "df", d.DF, 4, 1e-12)
	near(t, "estimate", d.Estimate, 2, 1e-12)
	near(t, "half", d.Half, 2.266957935527523, 1e-6)
	if ci := d.Interval(); ci.Low > 0 || d.PValue < 0.05 || ci.Level != 0.95 {
		t.Errorf("interval %+v holds 0 and p %g must be above 0.05", ci, d.PValue)
	}
	same, _ := WelchDifference([]float64{5, 5, 5}, []float64{5, 5}, 0.95)
	apart, _ := WelchDifference([]float64{5, 5, 5}, []float64{6, 6}, 0.95)
	if same.Half != 0 || same.Estimate != 0 || same.PValue != 1 || apart.Half != 0 || apart.Estimate != 1 || apart.PValue != 0 {
		t.Errorf("no spread: %+v and %+v, want the point 0 with p 1 and the point 1 with p 0", same, apart)
	}
	for _, c := range []struct {
		x, y  []float64
		level float64
		want  string
	}{
		{[]float64{1}, []float64{1, 2}, 0.95, "need at least 2 values per sample, have 1 and 2"},
		{[]float64{1, 2}, []float64{1, 2}, 1, "confidence level 1 not in (0, 1)"},
	} {
		if _, err := WelchDifference(c.x, c.y, c.level); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WelchDifference(%v, %v, %g): %v, want %q", c.x, c.y, c.level, err, c.want)
		}
	}
}

func TestMeanDifference(t *testing.T) {
	// PairedT's differences 1, 2, 1, 3: mean 1.75, sd sqrt(11/12), t(0.975, 3) = 3.182446305284263.
	d, err := MeanDifference([]float64{1, 2, 1, 3}, 0.95, 0)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "estimate", d.Estimate, 1.75, 1e-12)
	near(t, "half", d.Half, 3.182446305284263*math.Sqrt(11.0/12/4), 1e-6)
	near(t, "p", d.PValue, 0.035352847002517396, 1e-9)
	if d, _ := MeanDifference([]float64{1, 2}, 0.95, 1); !math.IsInf(d.Half, 1) || d.PValue != 1 {
		t.Errorf("no degree of freedom left: %+v, want an infinite interval and p 1", d)
	}
	if _, err := MeanDifference([]float64{1, 2}, 0, 0); err == nil || !strings.Contains(err.Error(), "confidence level 0 not in (0, 1)") {
		t.Errorf("level 0: %v", err)
	}
}

// TestDifferenceTestAndIntervalAgree: whatever the samples, the interval at 1 - alpha excludes 0
// exactly when p < alpha, Welch's and the paired one alike.
func TestDifferenceTestAndIntervalAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		n, m := 3+i%6, 3+(i/6)%5
		x, y := make([]float64, n), make([]float64, m)
		for k := range x {
			x[k] = rng.NormFloat64()
		}
		for k := range y {
			y[k] = 0.02*float64(i%40) + (0.3+rng.Float64())*rng.NormFloat64()
		}
		for _, alpha := range []float64{0.05, 0.01} {
			w, _ := WelchDifference(x, y, 1-alpha)
			if excl := w.Interval().Low > 0 || w.Interval().High < 0; excl != (w.PValue < alpha) {
				t.Fatalf("welch %v %v: interval %+v, p %g at alpha %g disagree", x, y, w.Interval(), w.PValue, alpha)
			}
			if n != m {
				continue
			}
			d, _ := PairedDifferences(x, y, 0)
			p, _ := MeanDifference(d, 1-alpha, 0)
			if excl := p.Interval().Low > 0 || p.Interval().High < 0; excl != (p.PValue < alpha) {
				t.Fatalf("paired %v %v: interval %+v, p %g at alpha %g disagree", x, y, p.Interval(), p.PValue, alpha)
			}
		}
	}
}

// TestWelchOnKnownDistributions checks the test's error rates: samples from equal distributions
// are rarely significant (about alpha), shifted ones nearly always.
func TestWelchOnKnownDistributions(t *testing.T) {
	const trials, n, alpha = 400, 10, 0.05
	rng := rand.New(rand.NewPCG(11, 12))
	draw := func(shift float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 100 + 2*rng.NormFloat64() + shift
		}
		return xs
	}
	var null, shift int
	for range trials {
		base := draw(0)
		if w, _ := WelchT(base, draw(0)); w.PValue <= alpha {
			null++
		}
		if w, _ := WelchT(base, draw(6)); w.PValue <= alpha { // a 3-sigma shift
			shift++
		}
	}
	// Under the null the count is Binomial(400, 0.05): mean 20, sd 4.4; 36 is 3.6 sd above.
	if null > 36 {
		t.Errorf("equal distributions significant in %d of %d", null, trials)
	}
	if shift < trials*98/100 {
		t.Errorf("3-sigma shift significant in only %d of %d", shift, trials)
	}
	t.Logf("null: %d significant; shifted: %d (of %d)", null, shift, trials)
}
