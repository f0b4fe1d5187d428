package stats

import "math"

// energy evaluates the E-divisive divergence of Matteson and James over one segment of values,
// reusing its table between calls so that permutation tests do not allocate.
//
// For a segment v[0:L], the left part X = v[0:tau] (n values) and the right part Y = v[tau:kappa]
// (m values) have the divergence
//
//	Q(tau, kappa) = 2/(n+m) * sum|X-Y| - 2m/((n+m)(n-1)) * sum_{i<k}|X_i-X_k| - 2n/((n+m)(m-1)) * sum_{j<k}|Y_j-Y_k|
//
// Every sum is read off one table of within-sums W(a, b) = sum_{a<=i<k<b} |v_i - v_k|, built in
// O(L^2); the cross sum is W(0, kappa) - W(0, tau) - W(tau, kappa). So the best split over all
// (tau, kappa) costs O(L^2) in total, not O(L^4).
type energy struct {
	w    []float64 // (L+1) x (L+1), row a, column b
	size int       // L+1 for the last table built
}

// build fills the within-sum table for v.
func (e *energy) build(v []float64) {
	l := len(v)
	e.size = l + 1
	if need := e.size * e.size; cap(e.w) < need {
		e.w = make([]float64, need)
	} else {
		e.w = e.w[:need]
	}
	for a := 0; a <= l; a++ {
		e.w[a*e.size+a] = 0
	}
	for b := range l { // add point b: W(a, b+1) = W(a, b) + sum_{a<=i<b} |v_i - v_b|
		col := 0.0
		e.w[b*e.size+b+1] = 0
		for a := b - 1; a >= 0; a-- {
			col += math.Abs(v[a] - v[b])
			e.w[a*e.size+b+1] = e.w[a*e.size+b] + col
		}
	}
}

func (e *energy) within(a, b int) float64 { return e.w[a*e.size+b] }

// q is the divergence of v[0:tau] against v[tau:kappa], from the table built for v.
func (e *energy) q(tau, kappa int) float64 {
	n, m := float64(tau), float64(kappa-tau)
	wl, wr := e.within(0, tau), e.within(tau, kappa)
	cross := e.within(0, kappa) - wl - wr
	q := 2 * cross / (n + m)
	if n > 1 {
		q -= 2 * m * wl / ((n + m) * (n - 1))
	}
	if m > 1 {
		q -= 2 * n * wr / ((n + m) * (m - 1))
	}
	return q
}

// bestSplit builds the table for v and returns the split tau maximising Q over every kappa (or,
// with fixedEnd, over kappa = len(v) only), each side holding at least minSize values. It returns
// tau = -1 when v is too short to split.
func (e *energy) bestSplit(v []float64, minSize int, fixedEnd bool) (tau int, q float64) {
	l := len(v)
	tau, q = -1, math.Inf(-1)
	if l < 2*minSize {
		return tau, q
	}
	e.build(v)
	for t := minSize; t <= l-minSize; t++ {
		first := t + minSize
		if fixedEnd {
			first = l
		}
		for k := first; k <= l; k++ {
			if v := e.q(t, k); v > q {
				tau, q = t, v
			}
		}
	}
	return tau, q
}
