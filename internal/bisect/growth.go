package bisect

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// grownFunctions is how many of the functions that grew a bisect lists.
const grownFunctions = 8

// Growth is what grew in one CPU profile of the bisected service from the last good commit to the
// first bad one: the functions whose time in themselves per request grew most (profiles.Diff over
// each side's last round), or why they were not compared.
type Growth struct {
	Service string `json:"service"`
	Profile string `json:"profile"` // perf-cpu (collect) or go-cpu (goProfiles)
	// LastGood and FirstBad are the commits compared (LastGood may be the good end).
	LastGood Commit `json:"lastGood"`
	FirstBad Commit `json:"firstBad"`
	// Functions grew most first, each with its nanoseconds a request on either side.
	Functions []Grown `json:"functions,omitempty"`
	// NotCompared says why no function is listed (no profile on a side, no requests counted).
	NotCompared string `json:"notCompared,omitempty"`
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

// Growths compares the service's CPU profiles (gate.CPUProfiles) of the last good and the first
// bad commit's results, one Growth for each profile either side has; with none on either side,
// one Growth saying so.
func Growths(svc string, lastGood, firstBad Commit, good, bad *results.Result) []Growth {
	var out []Growth
	for _, name := range gate.CPUProfiles {
		gp, gerr := lastProfile(good, svc, name)
		bp, berr := lastProfile(bad, svc, name)
		if gerr != nil && berr != nil && gp.Error == "" && bp.Error == "" {
			continue // neither side asked for this one
		}
		g := Growth{Service: svc, Profile: name, LastGood: lastGood, FirstBad: firstBad}
		g.Functions, g.NotCompared = grew(gp, bp, gerr, berr, good, bad, lastGood, firstBad)
		out = append(out, g)
	}
	if len(out) == 0 {
		out = append(out, Growth{Service: svc, Profile: strings.Join(gate.CPUProfiles, ", "), LastGood: lastGood, FirstBad: firstBad,
			NotCompared: fmt.Sprintf("no CPU profile of %s was collected for the last good commit %s nor the first bad %s",
				svc, lastGood.Short(), firstBad.Short())})
	}
	return out
}

// grew is the functions that grew from gp to bp, or why they were not compared.
func grew(gp, bp results.Profile, gerr, berr error, good, bad *results.Result, lastGood, firstBad Commit) ([]Grown, string) {
	var why []string
	if gerr != nil {
		why = append(why, fmt.Sprintf("no profile was collected for the last good commit %s (%v)", lastGood.Short(), gerr))
	}
	if berr != nil {
		why = append(why, fmt.Sprintf("no profile was collected for the first bad commit %s (%v)", firstBad.Short(), berr))
	}
	if len(why) > 0 {
		return nil, strings.Join(why, "; ")
	}
	gr, br := lastRequests(good), lastRequests(bad)
	if gr <= 0 || br <= 0 {
		return nil, "a run counted no requests (http/requests)"
	}
	base, err := profiles.Parse(gp.Data)
	if err != nil {
		return nil, fmt.Sprintf("the last good commit's profile: %v", err)
	}
	head, err := profiles.Parse(bp.Data)
	if err != nil {
		return nil, fmt.Sprintf("the first bad commit's profile: %v", err)
	}
	var out []Grown
	for _, c := range profiles.Diff(base, head, gr, br, math.MaxInt) { // the largest change first
		if c.Delta() > 0 && len(out) < grownFunctions {
			out = append(out, Grown{Function: c.Name, Where: c.Where(), Base: c.Base, Head: c.Head})
		}
	}
	if len(out) == 0 {
		return nil, "no function's time a request grew"
	}
	return out, ""
}

// lastProfile is the service's profile of that name from the result's last run (a commit's
// iterations keep the latest run's profiles), with its data in memory: the files a bisect saves
// are named by service, not commit, so a later commit's would have replaced them.
func lastProfile(r *results.Result, svc, name string) (results.Profile, error) {
	if r == nil || r.JobResults.Jobs[svc] == nil {
		return results.Profile{}, fmt.Errorf("no run of %s", svc)
	}
	for _, p := range r.JobResults.Jobs[svc].Profiles {
		switch {
		case p.Name != name:
		case len(p.Data) > 0:
			return p, nil
		case p.Error != "":
			return p, fmt.Errorf("%s: %s", name, p.Error)
		}
	}
	return results.Profile{}, fmt.Errorf("no %s profile", name)
}

// lastRequests is how many requests the loads counted in the result's last iteration (the run
// whose profiles the result keeps).
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
		fmt.Fprintf(w, "%s (CPU a request, by time in the function itself):\n", termtext.Clean(title))
		for _, f := range g.Functions {
			fmt.Fprintf(w, "  %+8.2f µs a request in %s (%.2f -> %.2f µs)\n", f.Delta()/1e3, termtext.Clean(f.Where), f.Base/1e3, f.Head/1e3)
		}
	}
}
