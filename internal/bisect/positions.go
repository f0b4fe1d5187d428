package bisect

import (
	rnd "github.com/crankshaft/crankshaft/internal/rounds"
	"math"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// Side by side (crank bisect --side-by-side), the commits of a round run at once, each in a
// position of its own: its port, its place in the order the applications start. A position can
// cost something of its own: measured here, the second of three copies of one binary cost 3.4 %
// more CPU a request than the first, round after round (1.7 % with samples every 0.1 s). So the
// commits take the positions in turn (Position), and Unbias takes each position's own cost out.

// Position is the place of the i-th of n commits in round r (from 0): the commits rotate, so that
// over any n rounds each one has been in each position once (rnd.Slot).
func Position(i, r, n int) int { return rnd.Slot(i, r, n) }

// Unbias takes out of side-by-side series what each position adds: series[i][r] is the i-th
// commit's figure in round r, measured in Position(i, r, len(series)). On logs (figures that are
// all positive; as they are otherwise), an additive model of a round's level (the machine at that
// moment), a commit's and a position's, fitted by backfitting; the figures come back with their
// position's part removed, and the degrees of freedom the fit spent on them (n-1: what a test of
// the figures must not count, PlaceFitted). With fewer rounds than commits, positions and commits
// cannot be told apart: the series come back as they are, 0 spent.
func Unbias(series [][]float64) ([][]float64, int) {
	n := len(series)
	rounds := math.MaxInt
	for _, s := range series {
		rounds = min(rounds, len(s))
	}
	if n < 2 || rounds < n {
		return series, 0
	}
	positive := true
	for _, s := range series {
		positive = positive && stats.AllPositive(s[:rounds])
	}
	x := make([][]float64, n)
	for i, s := range series {
		x[i] = append([]float64(nil), s[:rounds]...)
		if positive {
			x[i] = stats.Logs(x[i])
		}
	}
	pos := positionCosts(x, n, rounds)
	out := make([][]float64, n)
	for i := range n {
		out[i] = make([]float64, rounds)
		for r := range rounds {
			v := x[i][r] - pos[Position(i, r, n)]
			if positive {
				v = math.Exp(v)
			}
			out[i][r] = v
		}
	}
	return out, n - 1
}

// positionCosts fits x[i][r] = level[r] + commit[i] + pos[Position(i, r, n)] by alternating
// means (each effect centred) and returns the positions' costs.
func positionCosts(x [][]float64, n, rounds int) []float64 {
	level, commit, pos := make([]float64, rounds), make([]float64, n), make([]float64, n)
	for range 50 {
		for r := range rounds {
			var sum float64
			for i := range n {
				sum += x[i][r] - commit[i] - pos[Position(i, r, n)]
			}
			level[r] = sum / float64(n)
		}
		for i := range n {
			var sum float64
			for r := range rounds {
				sum += x[i][r] - level[r] - pos[Position(i, r, n)]
			}
			commit[i] = sum / float64(rounds)
		}
		center(commit)
		sums, counts := make([]float64, n), make([]float64, n)
		for i := range n {
			for r := range rounds {
				k := Position(i, r, n)
				sums[k] += x[i][r] - level[r] - commit[i]
				counts[k]++
			}
		}
		for k := range n {
			pos[k] = sums[k] / counts[k]
		}
		center(pos)
	}
	return pos
}

func center(xs []float64) {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	for i := range xs {
		xs[i] -= sum / float64(len(xs))
	}
}
