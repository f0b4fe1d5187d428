package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Side by side (--side-by-side): the commits of a round run at the same time on the same machines,
// each application on a port of its own with a load of its own. Measured one after the other, the
// launches of a commit on this project's VM varied by 5-8 % in CPU per request, the host's speed
// moving between them; two copies of one app measured at the same time differed by 1.2 %
// (docs/BISECT.md): whatever the host does falls on every commit of the round alike. The price: the
// commits share the machine, so a figure of how much of it a commit gets (requests/s as fast as
// the load can) says nothing of the commit; its cost (CPU per request, a latency at a fixed rate)
// does, while the machine has room for them all.

// Slots of the commits a round runs side by side: each one's application and loads on serverPort
// plus its slot.
const (
	slotGood = iota
	slotCandidate
	slotBad
)

// together is what side by side needs of a scenario: the bisected service's serverPort and the
// loads aimed at it, each copy moved to serverPort plus its slot.
type together struct {
	port  int
	loads []string
}

// sideBySide checks that the scenario can run several copies of the bisected service at once, and
// that the metric says something of each commit when they share the machine.
func sideBySide(r *config.Resolved, service, metric string) (together, error) {
	if strings.HasPrefix(metric, "http/rps") {
		return together{}, fmt.Errorf("--side-by-side: the commits share the machine, so each one's %s is its share of it, not its speed; judge a cost (--metric application:%s) or a latency at a fixed rate (--load.variables.rate)",
			metric, measure.CPUPerRequest)
	}
	var t together
	var app string
	for _, s := range r.Services {
		if strings.EqualFold(s.Name, service) {
			app = fmt.Sprint(s.Job.Variables["serverPort"])
			p, err := strconv.Atoi(app)
			if err != nil || p <= 0 || p > 65535-slotBad {
				return together{}, fmt.Errorf("--side-by-side: service %q needs a serverPort variable (each commit's copy listens on serverPort plus 0, 1 or 2); it has %q", s.Name, app)
			}
			t.port = p
		}
	}
	for _, s := range r.Services {
		if !s.Job.WaitForExit {
			continue
		}
		if got := fmt.Sprint(s.Job.Variables["serverPort"]); got != app {
			return together{}, fmt.Errorf("--side-by-side: load %q aims at serverPort %q, not service %q's %s: each copy's load is moved with it", s.Name, got, service, app)
		}
		t.loads = append(t.loads, s.Name)
	}
	if len(t.loads) == 0 {
		return together{}, fmt.Errorf("--side-by-side: scenario %q has no load (a job that runs to its end) to give each commit", r.Scenario)
	}
	return t, nil
}

// overrides move a commit's copy to its slot's port.
func (t together) overrides(service string, slot int) [][2]string {
	port := strconv.Itoa(t.port + slot)
	out := [][2]string{{service + ".variables.serverPort", port}}
	for _, l := range t.loads {
		out = append(out, [2]string{l + ".variables.serverPort", port})
	}
	return out
}

// copyName is a service's name in the run of a round side by side: its commit's place in the round.
func copyName(name string, i int) string { return fmt.Sprintf("%s#%d", name, i+1) }

// roundTogether runs one iteration of every commit at once and adds each its own: its copies of
// the bisected service and the loads, and the services they share (run once, from the first
// commit's scenario). A round during which the hypervisor took StealShare is run again, as once
// does. When the run fails, each commit is run alone to say which one fails.
func (b *bisector) roundTogether(ctx context.Context, crs []*commitRun) (*commitRun, error) {
	var shared, copies []controller.Service
	for i, cr := range crs {
		for _, s := range cr.run.Services {
			switch {
			case s.Name == b.src.service || s.Job.WaitForExit:
				s.Name = copyName(s.Name, i)
				copies = append(copies, s)
			case i == 0:
				shared = append(shared, s)
			}
		}
	}
	run := controller.Run{Scenario: crs[0].run.Scenario, Iterations: 1, Services: append(shared, copies...)}
	th := diagnose.DefaultThresholds()
	for again := 0; ; again++ {
		res, err := b.ctl.Execute(ctx, run)
		if err != nil {
			return b.whichFails(ctx, crs, err)
		}
		if steal, stolen := diagnose.Stolen(res, th); stolen && again < maxRerun {
			for _, cr := range crs {
				cr.rerun++
			}
			fmt.Fprintf(b.st.Stderr, "bisect: round run again: the machine's hypervisor gave %s of its CPU time to other guests (%s, from %.0f %%)\n",
				results.Value(measure.CPUSteal, steal), measure.CPUSteal, 100*th.StealShare)
			continue
		}
		for i, cr := range crs {
			cr.acc = results.AddIteration(cr.acc, splitCopy(res, i))
			cr.acc.Precision = resultPrecision(cr.acc, b.services, b.metric, b.f.run.spread.auto.precision)
		}
		return nil, nil
	}
}

// splitCopy is the i-th commit's part of a round run side by side, under the scenario's own
// service names: its copies, with their CPU per request over its own load's requests (not all
// the loads'), and the shared services as they are.
func splitCopy(res *results.Result, i int) *results.Result {
	out := *res
	out.JobResults.Jobs = map[string]*results.JobResult{}
	suffix := copyName("", i)
	for name, jr := range res.JobResults.Jobs {
		base, ok := strings.CutSuffix(name, suffix)
		switch {
		case ok:
			cp := *jr
			cp.Results = map[string]float64{}
			for k, v := range jr.Results {
				if k != measure.CPUPerRequest {
					cp.Results[k] = v
				}
			}
			out.JobResults.Jobs[base] = &cp
		case !strings.Contains(name, "#"):
			out.JobResults.Jobs[name] = jr
		}
	}
	results.Derive(out.JobResults.Jobs)
	return &out
}

// whichFails runs each commit of a round that failed side by side alone, once, to name the one
// that fails (to build, say); its own error is returned. When each runs alone, the round's error
// is given as the last commit's.
func (b *bisector) whichFails(ctx context.Context, crs []*commitRun, roundErr error) (*commitRun, error) {
	if ctx.Err() != nil {
		return crs[len(crs)-1], roundErr
	}
	for _, cr := range crs {
		if _, err := b.ctl.Execute(ctx, cr.run); err != nil {
			return cr, err
		}
	}
	return crs[len(crs)-1], fmt.Errorf("side by side (each runs alone): %w", roundErr)
}
