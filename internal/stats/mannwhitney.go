package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// MaxExactMannWhitney is the largest total sample size for which MannWhitneyU counts the exact
// null distribution of U (when there are no ties); above it, or with ties, it uses the normal
// approximation with tie and continuity corrections.
const MaxExactMannWhitney = 50

// UTest is the outcome of a two-sided Mann-Whitney U (Wilcoxon rank-sum) test.
type UTest struct {
	U      float64 // U of the first sample: pairs (x, y) with x > y, ties counting one half
	Z      float64 // standardised U (0 when the exact distribution was used)
	PValue float64 // two-sided
	Exact  bool    // p-value from the exact distribution of U rather than the normal approximation
	// MinPValue is the smallest p-value the test could give for these sample sizes (and ties): when
	// it exceeds the significance level, no difference can ever be significant.
	MinPValue float64
}

// MannWhitneyU tests whether x and y come from the same distribution, against a shift either way.
func MannWhitneyU(x, y []float64) (UTest, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return UTest{}, fmt.Errorf("mann-whitney: empty sample (%d and %d values)", n1, n2)
	}
	ranks, tieSum := rank(x, y)
	r1 := 0.0
	for i := range n1 {
		r1 += ranks[i]
	}
	u := r1 - float64(n1*(n1+1))/2
	if tieSum == 0 && n1+n2 <= MaxExactMannWhitney {
		dist := exactUDistribution(n1, n2)
		return UTest{U: u, PValue: exactTwoSided(dist, u), Exact: true, MinPValue: exactTwoSided(dist, 0)}, nil
	}
	z, p := normalU(u, n1, n2, tieSum)
	_, pmin := normalU(0, n1, n2, tieSum)
	return UTest{U: u, Z: z, PValue: p, MinPValue: pmin}, nil
}

// rank gives mid-ranks (1-based) of x then y in their pooled order, and the tie term sum(t^3 - t).
func rank(x, y []float64) ([]float64, float64) {
	n := len(x) + len(y)
	idx := make([]int, n)
	val := func(i int) float64 {
		if i < len(x) {
			return x[i]
		}
		return y[i-len(x)]
	}
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(val(a), val(b)) })
	ranks := make([]float64, n)
	tieSum := 0.0
	for i := 0; i < n; {
		j := i
		for j+1 < n && val(idx[j+1]) == val(idx[i]) {
			j++
		}
		mid := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = mid
		}
		t := float64(j - i + 1)
		tieSum += t*t*t - t
		i = j + 1
	}
	return ranks, tieSum
}

// normalU is the normal approximation of U's two-sided p-value, with tie and continuity corrections.
func normalU(u float64, n1, n2 int, tieSum float64) (z, p float64) {
	fn1, fn2 := float64(n1), float64(n2)
	n := fn1 + fn2
	mu := fn1 * fn2 / 2
	sigma2 := fn1 * fn2 / 12 * ((n + 1) - tieSum/(n*(n-1)))
	if sigma2 <= 0 {
		return 0, 1
	}
	dev := math.Max(math.Abs(u-mu)-0.5, 0)
	z = math.Copysign(dev/math.Sqrt(sigma2), u-mu)
	return z, math.Min(1, 2*normalSF(math.Abs(z)))
}

// exactUDistribution returns the probability of each U = 0..n1*n2 under the null hypothesis
// without ties. The counts are the coefficients of the Gaussian binomial coefficient
// [n1+n2 choose n1]_q = prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i).
func exactUDistribution(n1, n2 int) []float64 {
	size := n1*n2 + 1
	c := make([]float64, size)
	c[0] = 1
	for i := 1; i <= n1; i++ {
		for u := size - 1; u >= n2+i; u-- { // multiply by (1 - q^(n2+i))
			c[u] -= c[u-n2-i]
		}
		for u := i; u < size; u++ { // divide by (1 - q^i)
			c[u] += c[u-i]
		}
	}
	total := 0.0
	for _, v := range c {
		total += v
	}
	for u := range c {
		c[u] /= total
	}
	return c
}

// exactTwoSided is twice the smaller tail probability of u, capped at 1.
func exactTwoSided(dist []float64, u float64) float64 {
	k := int(math.Round(u))
	lower, upper := 0.0, 0.0
	for v, p := range dist {
		if v <= k {
			lower += p
		}
		if v >= k {
			upper += p
		}
	}
	return math.Min(1, 2*math.Min(lower, upper))
}
