package bisect

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
	"github.com/google/pprof/profile"
)

// grownFunctions is how many of the functions that grew a bisect lists.
const grownFunctions = 8

// Growth is what grew in one CPU profile of the bisected service from the last good commit to the
// first bad one: the functions whose time in themselves per request grew most (profiles.Diff of
// each side's runs merged, over the requests they counted), or why they were not compared.
type Growth struct {
	Service string `json:"service"`
	Profile string `json:"profile"` // perf-cpu (collect) or go-cpu (goProfiles)
	// LastGood and FirstBad are the commits compared (LastGood may be the good end).
	LastGood Commit `json:"lastGood"`
	FirstBad Commit `json:"firstBad"`
	// LastGoodRuns and FirstBadRuns are how many runs' profiles each side merged.
	LastGoodRuns int `json:"lastGoodRuns"`
	FirstBadRuns int `json:"firstBadRuns"`
	// Functions grew most first, each with its nanoseconds a request on either side.
	Functions []Grown `json:"functions,omitempty"`
	// NotCompared says why no function is listed (no profile on a side, no requests counted).
	NotCompared string `json:"notCompared,omitempty"`
	// OverAllRequests is set when a run's profile did not say how much of the run it covered
	// (an older result): its time is over all the run's requests, which reads low.
	OverAllRequests bool `json:"overAllRequests,omitempty"`
}

// Grown is one function whose CPU time in itself a request grew.
type Grown struct {
	Function string  `json:"function"`
	Where    string  `json:"where"`
	Base     float64 `json:"baseNsPerRequest"`
	Head     float64 `json:"headNsPerRequest"`
}

// Delta is how many nanoseconds a request the function grew by.
func (g Grown) Delta() float64 { return g.Head - g.Base }

// LastGood is the last commit before the first bad one that the search measured good (by its
// latest measurement), or the good end when none was.
func (r Result) LastGood() Commit {
	latest := map[int]Step{}
	badAt := math.MaxInt
	for _, s := range r.Steps {
		latest[s.Position] = s
		if s.Commit.SHA == r.FirstBad {
			badAt = s.Position
		}
	}
	last, at := r.Good, 0
	for pos, s := range latest {
		if s.Verdict == Good && pos < badAt && pos > at {
			last, at = s.Commit, pos
		}
	}
	return last
}

// ProfiledRun is one run's profiles of the bisected service and the requests its loads counted
// (each profile saw its Coverage of them).
type ProfiledRun struct {
	Profiles []results.Profile
	Requests float64
}

// Growths compares the service's CPU profiles (gate.CPUProfiles) of the last good and the first
// bad commit, each side's runs merged over the requests their profiles' windows saw (a run's
// requests times the profile's coverage of the run): one Growth for each profile
// either side has; with none on either side, one Growth saying so.
func Growths(svc string, lastGood, firstBad Commit, good, bad []ProfiledRun) []Growth {
	var out []Growth
	for _, name := range gate.CPUProfiles {
		gs, bs := merged(good, name), merged(bad, name)
		if gs.runs == 0 && bs.runs == 0 && gs.err == "" && bs.err == "" {
			continue // neither side asked for this one
		}
		g := Growth{Service: svc, Profile: name, LastGood: lastGood, FirstBad: firstBad, LastGoodRuns: gs.runs, FirstBadRuns: bs.runs,
			OverAllRequests: gs.overAll || bs.overAll}
		g.Functions, g.NotCompared = grew(gs, bs, lastGood, firstBad)
		out = append(out, g)
	}
	if len(out) == 0 {
		out = append(out, Growth{Service: svc, Profile: strings.Join(gate.CPUProfiles, ", "), LastGood: lastGood, FirstBad: firstBad,
			NotCompared: fmt.Sprintf("no CPU profile of %s was collected for the last good commit %s nor the first bad %s",
				svc, lastGood.Short(), firstBad.Short())})
	}
	return out
}

// side is one commit's runs' profiles of a name merged: how many runs, the requests their windows
// saw, or why none.
type side struct {
	p        *profile.Profile
	runs     int
	requests float64
	overAll  bool   // a run's profile without its coverage: all its requests counted
	err      string // the last run's error for this profile, when no run has one
}

// merged merges the runs' profiles of that name (their data in memory: the files a bisect saves are
// named by service, not commit, so a later commit's would have replaced them).
func merged(runs []ProfiledRun, name string) side {
	var s side
	var ps []*profile.Profile
	for _, r := range runs {
		for _, p := range r.Profiles {
			if p.Name != name {
				continue
			}
			if p.Error != "" || len(p.Data) == 0 {
				s.err = cmp.Or(p.Error, "no data")
				continue
			}
			pp, err := profiles.Parse(p.Data)
			if err != nil {
				s.err = err.Error()
				continue
			}
			seen := r.Requests * p.Coverage
			if p.Coverage <= 0 {
				seen, s.overAll = r.Requests, true
			}
			ps, s.requests = append(ps, pp), s.requests+seen
		}
	}
	if len(ps) > 0 {
		p, err := profile.Merge(ps)
		if err != nil {
			return side{err: fmt.Sprintf("its runs' profiles do not merge: %v", err)}
		}
		s.p, s.runs = p, len(ps)
	}
	return s
}

// grew is the functions that grew from good to bad, or why they were not compared.
func grew(good, bad side, lastGood, firstBad Commit) ([]Grown, string) {
	var why []string
	for _, s := range []struct {
		side
		which string
	}{{good, "the last good commit " + lastGood.Short()}, {bad, "the first bad commit " + firstBad.Short()}} {
		if s.p == nil {
			why = append(why, fmt.Sprintf("no profile was collected for %s (%s)", s.which, cmp.Or(s.err, "none in its runs")))
		}
	}
	if len(why) > 0 {
		return nil, strings.Join(why, "; ")
	}
	if good.requests <= 0 || bad.requests <= 0 {
		return nil, "a run counted no requests (http/requests)"
	}
	var out []Grown
	for _, c := range profiles.Diff(good.p, bad.p, good.requests, bad.requests, math.MaxInt) { // the largest change first
		if c.Delta() > 0 && len(out) < grownFunctions {
			out = append(out, Grown{Function: c.Name, Where: c.Where(), Base: c.Base, Head: c.Head})
		}
	}
	if len(out) == 0 {
		return nil, "no function's time a request grew"
	}
	return out, ""
}

// lastRequests is how many requests the loads counted in the result's last iteration.
func lastRequests(r *results.Result) float64 {
	total := 0.0
	for _, jr := range r.JobResults.Jobs {
		v, ok := jr.Results["http/requests"]
		if n := len(jr.Iterations); n > 0 {
			v, ok = jr.Iterations[n-1]["http/requests"]
		}
		if ok {
			total += v
		}
	}
	return total
}

// WriteGrowths writes what grew from the last good commit to the first bad one, or why not.
func WriteGrowths(w io.Writer, gs []Growth) {
	for _, g := range gs {
		title := fmt.Sprintf("what grew from the last good commit %s to the first bad %s, in %s's %s profile",
			g.LastGood.Short(), g.FirstBad.Short(), g.Service, g.Profile)
		if g.NotCompared != "" {
			fmt.Fprintf(w, "%s: not compared: %s\n", termtext.Clean(title), termtext.Clean(g.NotCompared))
			continue
		}
		how := ""
		if g.OverAllRequests {
			how = "; " + profiles.OverAllRequests
		}
		fmt.Fprintf(w, "%s (CPU a request over %d and %d runs, by time in the function itself%s):\n", termtext.Clean(title), g.LastGoodRuns, g.FirstBadRuns, how)
		for _, f := range g.Functions {
			fmt.Fprintln(w, profiles.Line(termtext.Clean(f.Where), f.Base, f.Head))
		}
	}
}
