package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/controller"
)

// sharedCoresNotes says, before a sweep over a service's cpuSet starts, which other services run
// on the same agent with cores that may be the swept ones: a load generator on the application's
// machine takes its CPU from the cores being counted, so more cores can bring less. One line per
// service sharing, naming the variants where it does and how to avoid it.
func sharedCoresNotes(axes []Axis, variants []Cell, services map[string][]controller.Service) []string {
	var notes []string
	for ai, a := range axes {
		if !a.IsCores() || a.Service() == "" {
			continue
		}
		shared := map[string][]string{} // other service -> variants where it shares cores
		var order []string
		for _, v := range variants {
			svcs := services[v.Name]
			i := slices.IndexFunc(svcs, func(s controller.Service) bool { return strings.EqualFold(s.Name, a.Service()) })
			if i < 0 {
				continue
			}
			swept, err := api.ParseCPUSet(v.Settings[ai].Value)
			if err != nil {
				continue
			}
			for _, o := range svcs {
				if o.Name == svcs[i].Name || !sameMachine(o.Endpoints, svcs[i].Endpoints) {
					continue
				}
				theirs, err := api.ParseCPUSet(o.Job.CpuSet)
				if err != nil || (theirs != nil && !overlaps(theirs, swept)) {
					continue
				}
				if _, seen := shared[o.Name]; !seen {
					order = append(order, o.Name)
				}
				shared[o.Name] = append(shared[o.Name], v.Name)
			}
		}
		for _, name := range order {
			notes = append(notes, fmt.Sprintf("crank sweep: note: %s runs on the same agent as %s and may use the cores %s sweeps (%s): "+
				"its CPU comes out of the cores being counted; pin it to other cores (--%s.cpuSet) or place it on another machine",
				name, a.Service(), a.Key, strings.Join(shared[name], "; "), name))
		}
	}
	return notes
}

// sameMachine tells whether two services' endpoints are the same agents (none: the embedded one).
func sameMachine(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// overlaps tells whether two sorted CPU lists share a CPU.
func overlaps(a, b []int) bool {
	return slices.ContainsFunc(a, func(c int) bool { _, ok := slices.BinarySearch(b, c); return ok })
}
