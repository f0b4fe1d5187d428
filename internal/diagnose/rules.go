package diagnose

import (
	"fmt"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// errorBound: bad responses and socket errors of every load job, over the attempts they made.
func errorBound(r run, th Thresholds) []results.Diagnostic {
	reqs := total(r.loads, measure.Requests)
	bad := total(r.loads, measure.BadResponses)
	errs := total(r.loads, measure.Errors)
	attempts := reqs + errs
	if attempts <= 0 || bad+errs <= th.ErrorShare*attempts {
		return nil
	}
	return []results.Diagnostic{{Kind: ErrorBound, Message: fmt.Sprintf(
		"%s of %s requests failed (%.1f%%): %s bad responses (status not 2xx/3xx) and %s socket errors; "+
			"throughput and latency describe the failures",
		n0(bad+errs), n0(attempts), 100*(bad+errs)/attempts, n0(bad), n0(errs))}}
}

// bottleneck: a saturated load generator or server, else contention, else too light a load. On a
// busy machine the verdicts are marked unreliable, and underloaded is not given at all.
func bottleneck(r run, th Thresholds, busy bool) []results.Diagnostic {
	load, server := known(r.loads), known(r.servers)
	if len(load) == 0 || len(server) == 0 {
		return nil
	}
	caveat := func(msg string) string {
		if busy {
			return msg + " (unreliable: the machine was busy, see machine-busy)"
		}
		return msg
	}
	main := busiest(server)
	var out []results.Diagnostic
	for _, l := range load {
		if l.threadsBusy(th.Saturated) || (l.saturated(th.Saturated) && !outweighed(l, append(load, server...))) {
			out = append(out, results.Diagnostic{Kind: ClientBound, Message: caveat(fmt.Sprintf(
				"%s: the load generator's CPU is saturated (%s) while %s uses %s: "+
					"the load generator limits the run; give it more threads or a machine of its own",
				l.name, usage(l), main.name, short(main)))})
		}
	}
	for _, s := range server {
		if s.saturated(th.Saturated) {
			out = append(out, results.Diagnostic{Kind: ServerBound, Message: caveat(fmt.Sprintf(
				"%s: the server's CPU is saturated (%s): the server limits the run", s.name, usage(s)))})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, s := range server {
		if what, ok := contended(s, th); ok {
			out = append(out, results.Diagnostic{Kind: ContentionBound, Message: caveat(fmt.Sprintf(
				"%s %s while its CPU is not saturated (%s) and neither is %s's (%s): lock contention limits the run",
				s.name, what, short(s), load[0].name, short(load[0])))})
		}
	}
	if len(out) > 0 {
		return out
	}
	if busy {
		return []results.Diagnostic{{Kind: Unreliable, Message: fmt.Sprintf(
			"what limited the run cannot be told: neither side reached the CPU it could use (%s: %s; %s: %s), "+
				"but the machine was busy outside the run, so the load may not be too light; run on a quiet machine",
			main.name, short(main), load[0].name, short(load[0]))}}
	}
	return []results.Diagnostic{{Kind: Underloaded, Message: fmt.Sprintf(
		"neither side is saturated (%s: %s; %s: %s) and lock contention is not high (%s): the load is too light; %s",
		main.name, short(main), load[0].name, short(load[0]), lockText(main), suggest(load[0], th))}}
}

// outweighed tells whether another job on j's machine used more CPU than j: on a machine they
// share, the one that takes less is not the one that fills it.
func outweighed(j *job, all []*job) bool {
	for _, o := range all {
		if o != j && o.machine != "" && o.machine == j.machine && o.raw > j.raw {
			return true
		}
	}
	return false
}

// machineBusy: CPU used on a machine beyond the run's jobs there.
func machineBusy(r run, th Thresholds) []results.Diagnostic {
	var out []results.Diagnostic
	for _, m := range r.machines {
		capacity := float64(m.cores) * 100
		other := m.outside()
		if m.global <= 0 || other < th.OtherShare*capacity {
			continue
		}
		out = append(out, results.Diagnostic{Kind: MachineBusy, Message: fmt.Sprintf(
			"the machine of %s was %.0f%% busy (benchmarks/cpu/global, %% of its %s) and %.0f%% of it was used outside the run "+
				"(other processes, the kernel, the agent): CPU figures and every other verdict are unreliable; run on a quiet machine",
			strings.Join(m.names, " and "), m.global, plural(m.cores, "core"), 100*other/capacity)})
	}
	return out
}

func known(jobs []*job) []*job {
	var out []*job
	for _, j := range jobs {
		if j.known() {
			out = append(out, j)
		}
	}
	return out
}

// busiest is the job using the largest share of what it can use (the first on ties).
func busiest(jobs []*job) *job {
	b := jobs[0]
	for _, j := range jobs[1:] {
		if j.cap > 0 && b.cap > 0 && j.raw/j.cap > b.raw/b.cap {
			b = j
		}
	}
	return b
}

// contended says how a server's lock contention is high, if it is.
func contended(s *job, th Thresholds) (string, bool) {
	var what []string
	if w, ok := s.results[measure.LockContention]; ok && w >= th.LockWaitMin && w >= th.LockWaitPerCPU*s.raw*10 {
		what = append(what, fmt.Sprintf("waits %.0f ms/s on locks (%s, %.0f ms of CPU per s)", w, measure.LockContention, s.raw*10))
	}
	if c, ok := s.results[measure.MonitorLockContention]; ok && c >= th.MonitorContentions {
		what = append(what, fmt.Sprintf("meets %.0f monitor lock contentions/s (%s)", c, measure.MonitorLockContention))
	}
	return strings.Join(what, " and "), len(what) > 0
}

func lockText(s *job) string {
	if w, ok := s.results[measure.LockContention]; ok {
		return fmt.Sprintf("%.2f ms/s", w)
	}
	if s.noCounters != "" {
		return "not measured: " + s.noCounters
	}
	return "not measured"
}

// usage is "97% of the 100% it can use (% of one core): 1 thread", from the mean of
// benchmarks/cpu/raw.
func usage(j *job) string {
	return fmt.Sprintf("%.0f%% of the %.0f%% it can use (%% of one core): %s", j.raw, j.cap, j.capNote)
}

// short is "45% of 167% (% of one core)".
func short(j *job) string {
	return fmt.Sprintf("%.0f%% of %.0f%% (%% of one core)", j.raw, j.cap)
}

func n0(v float64) string { return results.Format(v, "n0") }
