package results

import (
	"fmt"
	"strings"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// Profile is one profile an agent recorded of a service over an iteration's measured window
// (docs/PROFILES.md): where crank saved it, and its top functions.
type Profile struct {
	// Name is what it profiles: perf-cpu (collect), go-cpu, go-mutex, go-block (goProfiles).
	Name      string `json:"name"`
	Iteration int    `json:"iteration,omitempty"`
	Endpoint  string `json:"endpoint,omitempty"`
	// Path is the pprof file crank wrote (--output-dir, else beside --json); empty when none.
	Path string `json:"path,omitempty"`
	// Unit is the unit of Total and of the functions' values ("nanoseconds").
	Unit  string `json:"unit,omitempty"`
	Total int64  `json:"total,omitempty"`
	// Coverage is the share of the loads' measured run (0-1] that the profile's window covers
	// (profiles.Coverage): the run's requests times it are the requests the profile saw. 0 when
	// unknown (a result written before it was recorded, a profile without its window).
	Coverage float64         `json:"coverage,omitempty"`
	Top      []profiles.Func `json:"top,omitempty"`
	Error    string          `json:"error,omitempty"`
	// Site, in a mutex profile, is where most of the lock wait was (profiles.CallSite).
	Site *profiles.Func `json:"site,omitempty"`
	// Data is the profile (pprof format) while the run is in memory.
	Data []byte `json:"-"`
}

// shownFunctions is how many of a profile's top functions the table shows.
const shownFunctions = 5

// writeProfiles writes, under a service's table, its profiles of the last iteration that has
// some: each one's total, where it was saved, and its top functions.
func writeProfiles(b *strings.Builder, svc string, ps []Profile) {
	last := 0
	for _, p := range ps {
		last = max(last, p.Iteration)
	}
	for _, p := range ps {
		if p.Iteration != last {
			continue
		}
		head := fmt.Sprintf("%s profile %s", svc, p.Name)
		if p.Iteration > 0 {
			head += fmt.Sprintf(" (iteration %d)", p.Iteration)
		}
		if p.Error != "" {
			fmt.Fprintf(b, "%s: not recorded: %s\n", head, termtext.Clean(p.Error))
			continue
		}
		fmt.Fprintf(b, "%s: %s in all", head, amount(p.Total, p.Unit))
		if p.Path != "" {
			fmt.Fprintf(b, ", saved as %s", termtext.Clean(p.Path))
		}
		b.WriteString("\n")
		if p.Site != nil {
			fmt.Fprintf(b, "  %5.1f %%  at %s (the program's own frame under the wait)\n", 100*p.Site.Share, termtext.Clean(p.Site.Where()))
		}
		for _, f := range p.Top[:min(shownFunctions, len(p.Top))] {
			if f.Flat <= 0 {
				break // ranked by flat: the rest spent nothing in themselves
			}
			fmt.Fprintf(b, "  %5.1f %%  %s\n", 100*f.Share, termtext.Clean(f.Where()))
		}
	}
}

// amount says a profile's value in its unit: nanoseconds as seconds.
func amount(v int64, unit string) string {
	if unit == "nanoseconds" {
		return fmt.Sprintf("%.3g s", float64(v)/1e9)
	}
	return fmt.Sprintf("%d %s", v, unit)
}

// LockSite says where most of the lock wait was in the last Go mutex profile of ps:
// "80 % of the lock wait at main.handler (main.go:42)", or "" without one.
func LockSite(ps []Profile) string {
	for i := len(ps) - 1; i >= 0; i-- {
		if p := ps[i]; p.Name == "go-mutex" && p.Site != nil {
			return fmt.Sprintf("%.0f %% of the lock wait at %s", 100*p.Site.Share, p.Site.Where())
		}
	}
	return ""
}

// HotFunction says where a service spent the most CPU in itself, by its last CPU profile in ps
// (perf-cpu, which sees the kernel's share too, else go-cpu): "32 % of its CPU in main.spin
// (main.go:31)", or "" without one.
func HotFunction(ps []Profile) string {
	for _, name := range []string{"perf-cpu", "go-cpu"} {
		for i := len(ps) - 1; i >= 0; i-- {
			if p := ps[i]; p.Name == name && p.Error == "" && len(p.Top) > 0 && p.Top[0].Flat > 0 {
				return fmt.Sprintf("%.0f %% of its CPU in %s", 100*p.Top[0].Share, p.Top[0].Where())
			}
		}
	}
	return ""
}
