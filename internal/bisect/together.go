package bisect

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// Side by side (--side-by-side): the commits of a round run at the same time on the same machines,
// each application on a port of its own with a load of its own. Measured one after the other, the
// launches of a commit on this project's VM varied by 5-8 % in CPU per request, the host's speed
// moving between them; two copies of one app measured at the same time differed by 1.2 %
// (docs/BISECT.md): whatever the host does falls on every commit of the round alike. The price: the
// commits share the machine, so a figure of how much of it a commit gets (requests/s as fast as
// the load can) says nothing of the commit; its cost (CPU per request, a latency at a fixed rate)
// does, while the machine has room for them all.

// maxPositions is how many commits a round of crank bisect runs side by side at most (a step and
// both ends): each one's application and loads on serverPort plus its position (Position).
const maxPositions = 3

// together is what side by side needs of a scenario: the bisected service's serverPort and the
// loads aimed at it, each copy moved to serverPort plus its position.
type together struct {
	port  int
	loads []string
	// open are the loads with no fixed rate (rate 0 or none): said out loud, as they compete.
	open []string
}

// sideBySide checks that the scenario can run positions copies of the bisected service at once,
// and that the metric says something of each commit when they share the machine.
func sideBySide(r *config.Resolved, service, metric string, positions int) (together, error) {
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
			if err != nil || p <= 0 || p > 65536-positions {
				return together{}, fmt.Errorf("--side-by-side: service %q needs a serverPort variable (each commit's copy listens on serverPort plus 0 to %d); it has %q", s.Name, positions-1, app)
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
		if rate, _ := strconv.ParseFloat(fmt.Sprint(s.Job.Variables["rate"]), 64); !(rate > 0) {
			t.open = append(t.open, s.Name)
		}
	}
	if len(t.loads) == 0 {
		return together{}, fmt.Errorf("--side-by-side: scenario %q has no load (a job that runs to its end) to give each commit", r.Scenario)
	}
	return t, nil
}

// move is a commit's source for its copy in position: serverPort plus the position for the
// bisected service and the loads (and for a serverPort given on the command line, which every job
// sees and which wins over theirs).
func (t together) move(src runner.Source, service string, position int) runner.Source {
	port := strconv.Itoa(t.port + position)
	src = src.Override([2]string{service + ".variables.serverPort", port})
	for _, l := range t.loads {
		src = src.Override([2]string{l + ".variables.serverPort", port})
	}
	if _, ok := src.Variables["serverPort"]; ok {
		src = src.With(map[string]string{"serverPort": port})
	}
	return src
}

// copyName is a service's name in the run of a round side by side: its commit's position.
func copyName(name string, i int) string { return fmt.Sprintf("%s#%d", name, i+1) }

// roundTogether runs round r's iteration (from 0) of every commit at once and adds each its own:
// its copies of the bisected service and the loads, in its position of the round (started in the
// positions' order), and the services they share (run once, from the first commit's run in
// position 0: where nothing is moved). The round is diagnosed as a whole (runner.Diagnose: its
// machine is every commit's) and run again on a disturbed machine, as once does; each commit's
// part is judged by its own prepared run (judgeCopies). When the run fails, each commit is run
// alone to say which one fails.
func (b *Bench) roundTogether(ctx context.Context, crs []*CommitRun, r int) (*CommitRun, error) {
	var shared []controller.Service
	copies := make([][]controller.Service, len(crs))
	for i, cr := range crs {
		k := Position(i, r, len(crs))
		for _, s := range cr.at[k].Services() {
			if s.Name == b.src.service || s.Job.WaitForExit {
				s.Name = copyName(s.Name, k)
				copies[k] = append(copies[k], s)
			}
		}
		if i == 0 {
			for _, s := range cr.at[0].Services() {
				if s.Name != b.src.service && !s.Job.WaitForExit {
					shared = append(shared, s)
				}
			}
		}
	}
	for _, c := range copies {
		shared = append(shared, c...)
	}
	round := controller.Run{Scenario: crs[0].at[0].Resolved.Scenario, Iterations: 1, Services: shared}
	res, again, err := b.measure(ctx, "round", round, true, func(res *results.Result) error {
		runner.Diagnose(res) // the round's scripts are each part's (judgeCopies)
		return nil
	})
	for _, cr := range crs { // the re-runs started count, as they were said
		cr.rerun += again
		cr.stolen = stolenDuring(res)
	}
	if err != nil {
		return b.whichFails(ctx, crs, err)
	}
	parts, failed, err := judgeCopies(res, crs, r)
	if err != nil {
		return failed, err
	}
	for i, cr := range crs {
		b.add(cr, parts[i])
	}
	return nil, nil
}

// judgeCopies splits a round side by side into each commit's part (splitCopy) and has it judged by
// the commit's prepared run in its position: its thresholds, and whether its load's answers were
// its work (error-bound, unserved: the commit that is no measurement is returned with
// ErrUnjudged). A part's diagnosis is then the round's: the machine is the round's, and a part
// alone would count the other commits' copies as other work on it (machine-busy).
func judgeCopies(res *results.Result, crs []*CommitRun, r int) ([]*results.Result, *CommitRun, error) {
	parts := make([]*results.Result, len(crs))
	for i, cr := range crs {
		k := Position(i, r, len(crs))
		parts[i] = splitCopy(res, k)
		err := judged(cr.c, cr.at[k], parts[i])
		if err == nil {
			err = unjudged(cr.c, parts[i])
		}
		if err != nil {
			return nil, cr, err
		}
		parts[i].JobResults.Diagnostics = res.JobResults.Diagnostics
	}
	return parts, nil, nil
}

// splitCopy is the part of the commit in position i of a round run side by side, under the
// scenario's own service names: its copies, with their CPU per request over its own load's
// requests (not all the loads'), and the shared services as they are. Each part's services are its
// own (ownJob): its judgement's scripts add to their results, once per part.
func splitCopy(res *results.Result, i int) *results.Result {
	out := *res
	out.JobResults.Jobs = map[string]*results.JobResult{}
	suffix := copyName("", i)
	for name, jr := range res.JobResults.Jobs {
		base, ok := strings.CutSuffix(name, suffix)
		switch {
		case ok:
			cp := ownJob(jr)
			delete(cp.Results, measure.CPUPerRequest)
			out.JobResults.Jobs[base] = cp
		case !strings.Contains(name, "#"):
			out.JobResults.Jobs[name] = ownJob(jr)
		}
	}
	results.Derive(out.JobResults.Jobs)
	return &out
}

// ownJob is a copy of jr whose results, values and metadata (what crank's scripts change) are its
// own, so that one part's scripts never reach another's.
func ownJob(jr *results.JobResult) *results.JobResult {
	cp := *jr
	cp.Results, cp.Values, cp.Metadata = maps.Clone(jr.Results), maps.Clone(jr.Values), slices.Clone(jr.Metadata)
	if cp.Results == nil {
		cp.Results = map[string]float64{}
	}
	return &cp
}

// whichFails runs each commit of a round that failed side by side alone, once, to name the one
// that fails (to build, say); its own error is returned. When each runs alone, the round's error
// is given as the last commit's.
func (b *Bench) whichFails(ctx context.Context, crs []*CommitRun, roundErr error) (*CommitRun, error) {
	if ctx.Err() != nil {
		return crs[len(crs)-1], roundErr
	}
	for _, cr := range crs {
		if _, err := b.ex.Execute(ctx, cr.run(0)); err != nil {
			return cr, err
		}
	}
	return crs[len(crs)-1], fmt.Errorf("side by side (each runs alone): %w", roundErr)
}

// unbiased is the results of the commits of a round side by side (in the order rounds was given
// them: their positions follow it) with each position's own cost taken out of the judged figure
// (Unbias), their precision computed again, and the degrees of freedom that spent, which
// the tests of them do not count; one after the other, they are as they were, none spent.
func (b *Bench) unbiased(rs ...*results.Result) ([]*results.Result, int) {
	if b.side == nil || slices.Contains(rs, nil) {
		return rs, 0
	}
	series := make([][]float64, len(rs))
	for i, r := range rs {
		series[i] = runner.ResultValues(r, b.services, b.metric)
	}
	un, fitted := Unbias(series)
	out := make([]*results.Result, len(rs))
	for i, r := range rs {
		out[i] = scaledFigure(r, b.services, b.metric, un[i], series[i])
		out[i].Precision = runner.ResultPrecision(out[i], b.services, b.metric, b.c.Plan.Precision)
	}
	return out, fitted
}

// scaledFigure is a copy of res whose services' metric is scaled, iteration by iteration, from
// was to now (their Results the iterations' mean again); the rest is shared with res.
func scaledFigure(res *results.Result, services []string, metric string, now, was []float64) *results.Result {
	out := *res
	out.JobResults.Jobs = maps.Clone(res.JobResults.Jobs)
	for _, s := range services {
		jr := out.JobResults.Jobs[s]
		if jr == nil {
			continue
		}
		cp := *jr
		cp.Results = maps.Clone(jr.Results)
		cp.Iterations = make([]map[string]float64, len(jr.Iterations))
		var sum float64
		var n int
		for k, it := range jr.Iterations {
			cp.Iterations[k] = maps.Clone(it)
			v, ok := it[metric]
			if !ok {
				continue
			}
			if k < len(now) && k < len(was) && was[k] != 0 {
				v *= now[k] / was[k]
				cp.Iterations[k][metric] = v
			}
			sum, n = sum+v, n+1
		}
		if n > 0 {
			cp.Results[metric] = sum / float64(n)
		}
		out.JobResults.Jobs[s] = &cp
	}
	return &out
}
