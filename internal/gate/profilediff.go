package gate

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// diffedFunctions is how many functions a profile diff lists.
const diffedFunctions = 8

// CPUProfiles are the profiles whose value per request a comparison lists (crank compare, crank
// bisect's growth from the last good commit to the first bad).
var CPUProfiles = []string{"perf-cpu", "go-cpu"}

// writeProfileDiffs lists, for each service whose CPU profiles both results saved, the functions
// whose CPU per request grew or shrank most from the base to each other result: each profile's
// time over the requests its window saw (the run's requests times its coverage of the run).
func writeProfileDiffs(w io.Writer, rs []*results.Result, files []string) {
	for i := 1; i < len(rs); i++ {
		for _, svc := range slices.Sorted(maps.Keys(rs[0].JobResults.Jobs)) {
			for _, name := range CPUProfiles {
				writeProfileDiff(w, svc, name, rs[0], rs[i], files[0], files[i])
			}
		}
	}
}

func writeProfileDiff(w io.Writer, svc, name string, base, head *results.Result, baseFile, headFile string) {
	bp, bok := lastProfile(base, svc, name)
	hp, hok := lastProfile(head, svc, name)
	if !bok || !hok {
		return
	}
	br, hr := requests(base, bp.Iteration), requests(head, hp.Iteration)
	title := fmt.Sprintf("CPU per request in %s's %s profile, %s -> %s", svc, name, baseFile, headFile)
	if br <= 0 || hr <= 0 {
		fmt.Fprintf(w, "\n%s: not compared: a run counted no requests (http/requests)\n", termtext.Clean(title))
		return
	}
	how := "the functions that changed most, by time in themselves"
	if bp.Coverage > 0 && hp.Coverage > 0 {
		br, hr = br*bp.Coverage, hr*hp.Coverage // the requests each profile's window saw
	} else {
		how += "; " + profiles.OverAllRequests
	}
	b, err := profiles.Load(baseFile, bp.Path)
	if err == nil {
		h, herr := profiles.Load(headFile, hp.Path)
		if err = herr; err == nil {
			fmt.Fprintf(w, "\n%s (%s):\n", termtext.Clean(title), how)
			for _, c := range profiles.Diff(b, h, br, hr, diffedFunctions) {
				fmt.Fprintln(w, profiles.Line(termtext.Clean(c.Where()), c.Base, c.Head))
			}
			return
		}
	}
	fmt.Fprintf(w, "\n%s: not compared: %s\n", termtext.Clean(title), termtext.Clean(err.Error()))
}

// lastProfile is a service's saved profile of that name from its last iteration.
func lastProfile(r *results.Result, svc, name string) (results.Profile, bool) {
	jr := r.JobResults.Jobs[svc]
	if jr == nil {
		return results.Profile{}, false
	}
	var found results.Profile
	ok := false
	for _, p := range jr.Profiles {
		if p.Name == name && p.Path != "" && (!ok || p.Iteration >= found.Iteration) {
			found, ok = p, true
		}
	}
	return found, ok
}

// requests is how many requests the run's loads counted in an iteration (1-based; 0: the only one).
func requests(r *results.Result, iteration int) float64 {
	total := 0.0
	for _, jr := range r.JobResults.Jobs {
		v, ok := jr.Results["http/requests"]
		if iteration > 0 && iteration <= len(jr.Iterations) {
			v, ok = jr.Iterations[iteration-1]["http/requests"]
		}
		if ok {
			total += v
		}
	}
	return total
}
