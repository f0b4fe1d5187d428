package grafana

import "fmt"

// Nightly follows each scenario and profile over time: one point per run and service, runs and
// change points as annotations.
func Nightly() Dashboard {
	d := base("crank-nightly", "Crank nightly trends",
		"One point per run (crank_summary). Annotations: runs (crank_run) and change points (crank_changepoint).",
		"now-30d")
	d.Templating.List = []Variable{scenarioVar("crank_summary", true), profileVar("crank_summary", true)}
	d.Annotations.List = []Annotation{runAnnotation(where), {
		Name: "Change points", Datasource: influx, Enable: true, IconColor: "rgba(255, 96, 96, 1)",
		Query: `SELECT "text", "metric", "direction", "change_pct" FROM "crank_changepoint" WHERE ` + where +
			` AND $timeFilter`,
		TextColumn: "text", TagsColumn: "metric", TitleColumn: "direction"}}
	for i, m := range trends() {
		q := fmt.Sprintf(`SELECT %q FROM "crank_summary" WHERE %s AND $timeFilter GROUP BY "scenario", "profile", "arch", "service"`,
			m.field, where)
		d.Panels = append(d.Panels, panel(i+1, "timeseries", m.title, m.unit, grid(i, 0), "time_series", q,
			"$tag_scenario $tag_profile $tag_arch $tag_service"))
	}
	return d
}

// RunTimeline shows one session's samples, second by second, warm-up included.
func RunTimeline() Dashboard {
	d := base("crank-run", "Crank run timeline",
		"One session's samples (crank_timeline), warm-up included (tag phase). Set the time range around the run.",
		"now-24h")
	session := tagVar("session", "Session", "crank_timeline", where, false)
	session.Sort = 2
	d.Templating.List = []Variable{scenarioVar("crank_timeline", true), profileVar("crank_timeline", true), session}
	d.Annotations.List = []Annotation{runAnnotation(`"session" =~ /^$session$/`)}
	const bySession = `"session" =~ /^$session$/ AND $timeFilter GROUP BY "service", "endpoint"`
	panels := []metric{
		{"Requests/sec", `/^(http\/rps\/mean|runtime-counter\/requests-per-second)$/`, "reqps"},
		{"CPU", `"benchmarks/cpu"`, "percent"},
		{"Lock contention", `"runtime-counter/lock-contention"`, "suffix: ms/s"},
		{"Exceptions/sec", `"runtime-counter/exception-count"`, "suffix: /s"},
		{"Working set", `"benchmarks/working-set"`, "decmbytes"},
	}
	for i, m := range panels {
		from, alias := `"crank_timeline"`, "$tag_service #$tag_endpoint $col"
		if i == 0 { // with no sampled rate, the run's mean (one summary point) still shows
			from, alias = `"crank_timeline", "crank_summary"`, "$tag_service $col ($m)"
		}
		q := fmt.Sprintf(`SELECT %s FROM %s WHERE %s`, m.field, from, bySession)
		d.Panels = append(d.Panels, panel(i+1, "timeseries", m.title, m.unit, grid(i, 0), "time_series", q, alias))
	}
	q := `SELECT * FROM "crank_summary" WHERE "session" =~ /^$session$/ AND $timeFilter GROUP BY "service"`
	d.Panels = append(d.Panels, panel(len(panels)+1, "table", "Results", "", GridPos{H: 8, W: 12, X: 12, Y: 16},
		"table", q, ""))
	return d
}

// Compare puts variants side by side: the runs selected, grouped by a tag ($by: a --property
// such as partitions, a promoted variable, or arch, machine...) and by architecture.
func Compare() Dashboard {
	d := base("crank-compare", "Crank compare variants",
		"Runs grouped by the tag chosen in 'Compare by' (a --property such as partitions) and by arch.",
		"now-30d")
	sel := where + ` AND "session" =~ /^$session$/ AND $timeFilter`
	by := Variable{Name: "by", Label: "Compare by", Type: "query", Datasource: influx,
		Query: `SHOW TAG KEYS FROM "crank_summary"`, Definition: `SHOW TAG KEYS FROM "crank_summary"`,
		Refresh: 1, Sort: 1, Current: &Current{Text: "partitions", Value: "partitions"}}
	d.Templating.List = []Variable{scenarioVar("crank_summary", true), profileVar("crank_summary", true),
		tagVar("session", "Sessions", "crank_summary", where, true), by}
	d.Annotations.List = []Annotation{runAnnotation(where)}
	load := `SELECT mean("http/rps/mean") AS "req/s", mean("http/latency/99") AS "p99 ms", count("http/rps/mean") AS "runs" ` +
		`FROM "crank_summary" WHERE ` + sel + ` GROUP BY "$by", "arch"`
	app := `SELECT mean("benchmarks/cpu") AS "cpu %", mean("runtime-counter/lock-contention") AS "lock ms/s", ` +
		`mean("runtime-counter/exception-count") AS "exceptions/s" FROM "crank_summary" WHERE ` + sel +
		` GROUP BY "$by", "arch", "service"`
	d.Panels = []Panel{
		panel(1, "table", "Load by variant", "", GridPos{H: 8, W: 12, X: 0, Y: 0}, "table", load, ""),
		panel(2, "table", "Services by variant", "", GridPos{H: 8, W: 12, X: 12, Y: 0}, "table", app, ""),
	}
	for i, m := range trends() {
		q := fmt.Sprintf(`SELECT mean(%q) FROM "crank_summary" WHERE %s GROUP BY time($__interval), "$by", "arch", "service" fill(none)`,
			m.field, sel)
		d.Panels = append(d.Panels, panel(i+3, "timeseries", m.title+" by variant", m.unit, grid(i, 8),
			"time_series", q, "$by=$tag_$by $tag_arch $tag_service"))
	}
	return d
}
