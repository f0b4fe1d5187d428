package controller

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/results"
)

// checkedUnits are the units of the figures a generator's part is checked on before the parts
// are merged: rates, counts, latencies and throughput, which no run measures negative.
var checkedUnits = map[string]bool{measure.UnitRPS: true, measure.UnitCount: true, measure.UnitMs: true, measure.UnitMBPerSec: true}

// rateSlack is how far a generator's requests/s may exceed its requests over its window: a tool
// counts its rate over its duration, while its window also holds the drain of the requests in
// flight at the end (a 1 s load whose requests time out after 2 s has a 3 s window).
const rateSlack = 4

// implausiblePart lists, "figure: why" in name order, what in one generator's part no real run
// can give, before its part is merged into the load's (one agent's -1e9 req/s made the merged
// requests/s -999,998,000 with no word): its tool's figures as the agent checks them
// (parsers.Implausible: a rate, count, latency or throughput negative or not a finite number,
// latency percentiles out of order), its load report's rates and window, and a requests/s above
// rateSlack times its requests over its window. A part without a load report (a tool whose
// parser gives none) has no window to check its rate against.
func implausiblePart(own map[string]float64, lr *api.LoadReport) []string {
	catalog := measure.Default()
	figures := map[string]float64{}
	for name, v := range own {
		if md, ok := catalog.Lookup(name); ok && checkedUnits[md.Unit] && md.Source != "Derived" {
			figures[name] = v
		}
	}
	why := parsers.Implausible(figures)
	if why == nil {
		why = map[string]string{}
	}
	if lr != nil {
		for name, v := range map[string]float64{"load report askedRate": lr.AskedRate, "load report achievedRate": lr.AchievedRate} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				why[name] = fmt.Sprintf("the agent gave %v, which no run can measure", v)
			}
		}
		window := lr.End.Sub(lr.Start)
		if window < 0 {
			why["load report window"] = fmt.Sprintf("it ends %s before it starts", -window)
		}
		rps, okRate := figures[measure.RPS]
		reqs, okReqs := figures[measure.Requests]
		if okRate && okReqs && window > 0 && rps > rateSlack*reqs/window.Seconds()+1 {
			why[measure.RPS] = fmt.Sprintf("%s req/s, more than %d times what its %s requests over its %s window allow",
				results.Format(rps, "n0"), rateSlack, results.Format(reqs, "n0"), window)
		}
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(why)) {
		out = append(out, name+": "+why[name])
	}
	return out
}

// ImplausiblePart is the error of a run one of whose generators gave a part no real run can give
// (implausiblePart): the run fails naming it and its figures; the load's figures are the other
// generators' (keepPlausible).
type ImplausiblePart struct {
	Service, Endpoint string
	Why               []string
	in                *instance
}

func (e *ImplausiblePart) Error() string {
	return fmt.Sprintf("service %q: the generator on %s reported what no run can measure, so its part is not merged into the load's: %s",
		e.Service, e.Endpoint, strings.Join(e.Why, "; "))
}

// keepPlausible assembles the services' results from the instances without the split loads'
// implausible parts: each such generator is left out of its load's figures and listed among its
// generators as failed, with why, and the error names every one. Each round leaves one instance
// out, so it ends within len(all) rounds.
func keepPlausible(services []Service, all []*instance) (map[string]*results.JobResult, error) {
	var bad []error
	var parts []*ImplausiblePart
	rest := all
	for {
		jobs, err := assemble(services, rest)
		ip := (*ImplausiblePart)(nil)
		if !errors.As(err, &ip) {
			if err != nil || len(parts) == 0 {
				return jobs, err
			}
			for _, p := range parts {
				if jr := jobs[p.Service]; jr != nil {
					jr.Generators = append(jr.Generators, results.Generator{Endpoint: p.Endpoint,
						Failed: "it reported what no run can measure: " + strings.Join(p.Why, "; ")})
				}
			}
			return jobs, errors.Join(bad...)
		}
		bad, parts = append(bad, err), append(parts, ip)
		rest = slices.DeleteFunc(slices.Clone(rest), func(in *instance) bool { return in == ip.in })
	}
}
