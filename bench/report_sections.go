package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/stats"
)

func renderComparison(p printer, c comparison) {
	other := sideClient
	if c.Side == sideClient {
		other = sideServer
	}
	p("## %s", c.Title)
	p("")
	p("%s", c.About)
	p("")
	p("| subject | mode | %s CPU us/req | %s kernel %% | ratio (median of rounds) | 95 %% interval | run-to-run range | per-round range | ratio of medians | target | met | %s us/req | req/s | rounds |", c.Side, c.Side, other)
	p("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: |")
	results := c.Results
	otherMedians := otherSide(c.Side, c.Samples, results)
	for _, r := range results {
		target := "-"
		if r.Target > 0 {
			target = "<= " + ratio(r.Target)
		}
		if r.Skipped != "" {
			p("| %s | %s | %s | | | | | | | %s | - | | | 0 |", r.Subject, r.Mode, r.Skipped, target)
			continue
		}
		rounds := fmt.Sprintf("%d of %d", r.Used, r.Valid)
		if !r.Clean {
			rounds = fmt.Sprintf("%d, disturbed incl.", r.Used)
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", r.Subject, r.Mode, num(r.Median, 2),
			num(r.KernelShare, 0), ratio(r.Ratio), precisionText(r), runRange(r.Runs), ratioRange(r.RoundRatios), ratio(r.RatioOfMedians), target, r.Met(),
			num(otherMedians[r.Subject+"|"+r.Mode], 2), num(r.MedianRPS, 0), rounds)
	}
	p("")
	p("Ratios are against %s in the same mode. In each bench run a row uses the rounds in which", refName(c.Rows))
	p("neither CPU was disturbed for it and its reference, when the run has one (*rounds*: used of valid);")
	p("otherwise that run's every valid round (*disturbed incl.*). Each bench run starts the servers")
	p("afresh; a run's figure is the median of its rounds, and the row's the median of all its rounds.")
	p("*95 %% interval* is the row's precision: half the width of the distribution-free interval of the")
	p("median of its per-round ratios (order statistics), as a share of the ratio; a run adds rounds for")
	p("the rows above the bench's --precision. *Run-to-run range* is the lowest and the highest of the")
	p("runs' ratios: the spread a comparison of two benches must see past. *Per-round range* is the same")
	p("over single rounds. *%s kernel %%* is the median over the row's rounds of the %s's system time", strings.ToUpper(c.Side[:1])+c.Side[1:], c.Side)
	p("over its user + system time (`/proc/<pid>/stat`'s stime / (utime + stime)), which includes the")
	p("loopback's softirq delivered in the process's context.")
	p("")
	p("<details><summary>Per round</summary>")
	p("")
	p("| run | round | subject | mode | requests | server us/req | client us/req | server, client kernel %% | others on CPU %d, %d | note |", cpuServer, cpuClient)
	p("| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, s := range c.Samples {
		p("| %d | %d | %s | %s | %d | %s | %s | %s, %s | %s%%, %s%% | %s |", s.Run, s.Round, s.Subject, s.Mode, s.Requests, num(s.ServerUS, 2),
			num(s.ClientUS, 2), num(s.ServerSysShare(), 0), num(s.ClientSysShare(), 0), num(s.OthersServer, 0), num(s.OthersClient, 0), sampleNote(s))
	}
	p("")
	p("</details>")
	p("")
	if len(c.Commands) > 0 {
		p("Commands (`$TMP` is the bench's temporary folder):")
		p("")
		p("<!-- doccheck: skip: a record of what make bench ran; $TMP and the ports were that run's -->")
		p("```")
		for _, cmd := range c.Commands {
			p("%s", cmd)
		}
		p("```")
		p("")
	}
	if c.NginxConf != "" {
		p("`$TMP/nginx/nginx.conf`:")
		p("")
		p("```nginx")
		p("%s", strings.TrimRight(c.NginxConf, "\n"))
		p("```")
		p("")
	}
	for _, n := range c.Notes {
		p("- %s", n)
	}
	if len(c.Notes) > 0 {
		p("")
	}
}

// ratioRange is the lowest and highest of a row's per-round ratios ("0.55-0.66x"; "n/a" for none).
func ratioRange(xs []float64) string {
	if len(xs) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f-%.2fx", slices.Min(xs), slices.Max(xs))
}

// sampleNote is the raw table's note on a run: why it does not count, whether it was disturbed.
func sampleNote(s sample) string {
	var notes []string
	if s.Disturbed() {
		notes = append(notes, "disturbed")
	}
	if s.Err != "" {
		notes = append(notes, strings.ReplaceAll(s.Err, "|", "/"))
	}
	return strings.Join(notes, "; ")
}

// otherSide is the median CPU per request of the side a comparison does not judge, by subject|mode,
// over the same runs as the row's figures.
func otherSide(side string, samples []sample, results []rowResult) map[string]float64 {
	clean := map[string]bool{}
	for _, r := range results {
		clean[r.Subject+"|"+r.Mode] = r.Clean
	}
	by := map[string][]float64{}
	for _, s := range samples {
		if !s.Valid() || (clean[s.Subject+"|"+s.Mode] && s.Disturbed()) {
			continue
		}
		v := s.ClientUS
		if side == sideClient {
			v = s.ServerUS
		}
		by[s.Subject+"|"+s.Mode] = append(by[s.Subject+"|"+s.Mode], v)
	}
	out := map[string]float64{}
	for k, xs := range by {
		out[k] = stats.Median(xs)
	}
	return out
}

// refName names the rows' reference: one name, or each distinct one in order ("wrk, h2load").
func refName(rows []row) string {
	var names []string
	for _, r := range rows {
		if !slices.Contains(names, r.Reference) {
			names = append(names, r.Reference)
		}
	}
	if len(names) == 0 {
		return "the reference"
	}
	if len(names) > 1 {
		return "each row's reference (" + strings.Join(names, ", ") + ")"
	}
	return names[0]
}

func renderAgent(p printer, a agentSection) {
	p("## The agent's CPU while it samples a job")
	p("")
	p("`%s` (not pinned)", a.Command)
	p("")
	p("For each case a job is submitted and started with the API client")
	p("(`internal/api`), the agent is left 1 s to finish starting it, and its own CPU (utime + stime of")
	p("`/proc/<pid>/stat`, every thread; not the job's) is read over the window. Nothing else calls the")
	p("agent in the window (a controller would also read the job's status every 250 ms). The schedstat")
	p("column is the same from `/proc/<pid>/task/*/schedstat` in nanoseconds, finer than the 10 ms ticks.")
	p("The target (under %g%% of one core, sampling every 1 s) is judged on schedstat read every %s of", agentTarget, agentSlice)
	p("the window: *yes* when the 95 %% interval of the slices' mean (Student's t) is all under it, *no*")
	p("when all of it is over, *cannot tell* when it holds the target or there are under %d slices.", minSlices)
	p("")
	if a.Skipped != "" {
		p("%s", a.Skipped)
		p("")
		return
	}
	p("| job | interval | window | agent CPU, %% of one core | schedstat | CPU samples taken | target | met |")
	p("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
	for _, c := range a.Cases {
		target, met := "-", "-"
		if c.Interval == time.Second {
			target = fmt.Sprintf("< %g%%", agentTarget)
			met, _ = c.Met()
		}
		if c.Err != "" {
			p("| %s | %s | | failed: %s | | | %s | - |", c.Job, c.Interval, strings.ReplaceAll(c.Err, "|", "/"), target)
			continue
		}
		p("| %s | %s | %.1f s | %.2f%% | %.3f%% | %d | %s | %s |", c.Job, c.Interval, c.Window.Seconds(),
			c.Percent(), c.SchedPercent(), c.Samples, target, met)
	}
	p("")
}

func renderOverhead(p printer, o overheadSection) {
	p("## crank's overhead: from start to the first request")
	p("")
	p("`%s`", o.Command)
	p("")
	p("The plaintext scenario with the built-in load for 1 s, run once to warm the build cache and then")
	p("timed. The load reaches the app through a forwarding proxy in the bench (the load's `serverPort`")
	p("is the proxy's), which records when the first byte of the first request arrives; it forwards")
	p("within tens of microseconds. Times are from just before crank's process is started; the phases")
	p("are the moments crank printed its progress lines. A run counts when the agent reused the cached")
	p("build (`environment.buildReused`); the source is the whole repository, so another engineer's")
	p("edit in between makes a run rebuild, and that run is shown but not counted.")
	p("")
	if o.Skipped != "" {
		p("%s", o.Skipped)
		p("")
		return
	}
	head := []string{"run", "build"}
	for _, e := range progressEvents[:4] {
		head = append(head, e.name)
	}
	head = append(head, "**first request**", "load done", "exit", "note")
	p("| %s |", strings.Join(head, " | "))
	p("|%s", strings.Repeat(" --- |", len(head)))
	for _, r := range o.Runs {
		p("| %s |", strings.Join(overheadCells(r), " | "))
	}
	p("")
	p("Median time to the first request of the counted runs: **%s s**.", num(o.MedianFirst(), 2))
	p("")
}

func overheadCells(r overheadRun) []string {
	build := "rebuilt"
	if r.Reused {
		build = "reused"
	}
	name := fmt.Sprint(r.Run)
	if r.Warm {
		name += " (warm-up)"
	}
	at := map[string]time.Duration{}
	for _, e := range r.Events {
		if _, ok := at[e.Name]; !ok {
			at[e.Name] = e.At
		}
	}
	secs := func(d time.Duration, ok bool) string {
		if !ok || d <= 0 {
			return ""
		}
		return fmt.Sprintf("%.3f", d.Seconds())
	}
	cells := []string{name, build}
	for _, e := range progressEvents[:4] {
		d, ok := at[e.name]
		cells = append(cells, secs(d, ok))
	}
	first := "none"
	if r.FirstRequest > 0 {
		first = "**" + secs(r.FirstRequest, true) + "**"
	}
	d, ok := at["load done"]
	cells = append(cells, first, secs(d, ok), secs(r.Exit, true),
		strings.ReplaceAll(strings.ReplaceAll(r.Err, "|", "/"), "\n", " "))
	return cells
}
