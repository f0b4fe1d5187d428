package profiles

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/google/pprof/profile"
)

// Change is one function's value per request in two profiles (its flat value over the requests
// each run served), in the profiles' unit.
type Change struct {
	Func
	Base, Head float64
}

// Line is a function's change of CPU a request as crank compare and crank bisect print it:
// "  +71.96 µs a request in main.spin (main.go:31) (0.00 -> 71.96 µs)"; base and head in ns.
func Line(where string, base, head float64) string {
	return fmt.Sprintf("  %+8.2f µs a request in %s (%.2f -> %.2f µs)", (head-base)/1e3, where, base/1e3, head/1e3)
}

// Delta is how much the function's value per request grew (negative: shrank).
func (c Change) Delta() float64 { return c.Head - c.Base }

// Diff is the n functions whose value per request changed most between base and head (either
// way, the largest change first), given how many requests each profile's window saw: a run's
// requests times the profile's Coverage of it. Over all of a run's requests, a profile that
// covers part of the run reads low.
func Diff(base, head *profile.Profile, baseRequests, headRequests float64, n int) []Change {
	if baseRequests <= 0 || headRequests <= 0 {
		return nil
	}
	byName := map[string]*Change{}
	add := func(p *profile.Profile, requests float64, head bool) {
		for _, f := range Top(p, math.MaxInt) {
			c, ok := byName[f.Name]
			if !ok {
				c = &Change{Func: f}
				byName[f.Name] = c
			}
			if head {
				c.Head, c.Func = float64(f.Flat)/requests, f
			} else {
				c.Base = float64(f.Flat) / requests
			}
		}
	}
	add(base, baseRequests, false)
	add(head, headRequests, true)
	out := make([]Change, 0, len(byName))
	for _, c := range byName {
		if c.Delta() != 0 {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(math.Abs(b.Delta()), math.Abs(a.Delta())), cmp.Compare(a.Name, b.Name))
	})
	return out[:min(n, len(out))]
}

// OverAllRequests says that a profile's figures are over all the run's requests, its window
// unknown (a result file written before profiles carried their coverage).
const OverAllRequests = "per request over all the run's requests: reads low when the profile covers part of the run"

// Coverage is the share of a load's measured run, from to to, that the profile's window
// (TimeNanos for DurationNanos, on the same clock) covers: in (0, 1], or 0 when unknown (a profile
// without its window, or a window outside the run). The run's requests times it are the requests
// the window saw, the load's rate taken as even over its run.
func Coverage(p *profile.Profile, from, to time.Time) float64 {
	if p == nil || p.TimeNanos <= 0 || p.DurationNanos <= 0 || !to.After(from) {
		return 0
	}
	start := p.TimeNanos
	end := start + p.DurationNanos
	overlap := min(end, to.UnixNano()) - max(start, from.UnixNano())
	if overlap <= 0 {
		return 0
	}
	return float64(overlap) / float64(to.UnixNano()-from.UnixNano())
}

// MaxFile bounds a profile file read back (crank report, crank compare).
const MaxFile = 64 << 20

// Load reads a saved profile that a result file names: at its path, else (crank ran in another
// folder) beside the result file.
func Load(resultFile, saved string) (*profile.Profile, error) {
	path := saved
	if _, err := os.Stat(path); err != nil && !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(resultFile), filepath.Base(saved))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", saved, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	if len(b) > MaxFile {
		return nil, fmt.Errorf("profile %s: larger than %d bytes", path, MaxFile)
	}
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	return p, nil
}
