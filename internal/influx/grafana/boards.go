package grafana

import (
	"fmt"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// RunLink opens the run dashboard on a crank_run row's session and time range (fields session,
// from_ms and to_ms of the row).
const RunLink = "/d/crank-run/crank-run-timeline?var-session=${__data.fields.session}" +
	"&from=${__data.fields.from_ms}&to=${__data.fields.to_ms}"

// Nightly follows each series over time: one line per scenario, profile, machine, arch, variant,
// branch and service; change points as annotations on their series; the runs, each linked to
// its run dashboard; and the errors.
func Nightly() Dashboard {
	d := base("crank-nightly", "Crank nightly trends",
		"One point per run (crank_summary), one line per scenario, machine, variant, branch and service. "+
			"Annotations: runs (crank_run) and change points (crank_changepoint).", "now-30d")
	d.Templating.List = identityVars("crank_summary")
	where := filter(seriesTags)
	d.Annotations.List = []Annotation{runAnnotation(filter(runTags)), {
		Name: "Change points", Datasource: influx, Enable: true, IconColor: "rgba(255, 96, 96, 1)",
		Query: `SELECT "text", "metric", "direction", "change_pct", "service", "machine", "variant" FROM "crank_changepoint" WHERE ` +
			filter([]string{"scenario", "profile", "machine", "arch", "variant"}) + ` AND $timeFilter`,
		TextColumn: "text", TagsColumn: "metric,service,machine,variant", TitleColumn: "direction"}}
	const by = `GROUP BY "scenario", "profile", "machine", "arch", "variant", "branch", "service"`
	const alias = "$tag_scenario $tag_machine $tag_variant $tag_branch $tag_service"
	id := 0
	for i, m := range trends() {
		id++
		q := fmt.Sprintf(`SELECT %q FROM "crank_summary" WHERE %s AND $timeFilter %s`, m.field, where, by)
		d.Panels = append(d.Panels, panel(id, "timeseries", m.title, m.unit, grid(i, 0), "time_series", q, alias))
	}
	y := (len(trends()) + 1) / 2 * 8
	id++
	d.Panels = append(d.Panels, row(id, "Errors", y))
	for i, m := range errorMetrics() {
		id++
		q := fmt.Sprintf(`SELECT %q FROM "crank_summary" WHERE %s AND $timeFilter %s`, m.field, where, by)
		d.Panels = append(d.Panels, panel(id, "timeseries", m.title, m.unit, grid(i, y+1), "time_series", q, alias))
	}
	id++
	runs := panel(id, "table", "Runs", "", GridPos{H: 10, W: 24, X: 0, Y: y + 9}, "table",
		`SELECT "session", "text", "returnCode", "from_ms", "to_ms" FROM "crank_run" WHERE `+filter(runTags)+
			` AND $timeFilter ORDER BY time DESC`, "")
	runs.Description = "Each run; its session opens the run dashboard on the run's time range."
	runs.FieldConfig.Overrides = []Override{{Matcher: Matcher{ID: "byName", Options: "session"},
		Properties: []Property{{ID: "links", Value: []DataLink{{Title: "Run timeline", URL: RunLink}}}}}}
	runs.FieldConfig.Overrides = append(runs.FieldConfig.Overrides, unitOf("dateTimeAsIso", "from_ms", "to_ms")...)
	return withPanels(d, runs)
}

func withPanels(d Dashboard, p ...Panel) Dashboard {
	d.Panels = append(d.Panels, p...)
	return d
}

// RunTimeline shows one session second by second: per-second requests (the application's counter
// and the built-in generator's), CPU, runtime counters and memory, with the load phases shaded;
// its latency, errors and results. Opened from the nightly runs table with the run's time range.
func RunTimeline() Dashboard {
	d := base("crank-run", "Crank run timeline",
		"One session's samples (crank_timeline), warm-up and cool-down shaded (crank_phase). "+
			"Open it from the nightly dashboard's runs table to get the run's time range.", "now-24h")
	session := tagVar("session", "Session", "crank_timeline", `"scenario" =~ /^$scenario$/ AND "profile" =~ /^$profile$/`, false)
	session.Sort = 2
	d.Templating.List = []Variable{tagVar("scenario", "Scenario", "crank_timeline", "", true),
		tagVar("profile", "Profile", "crank_timeline", `"scenario" =~ /^$scenario$/`, true), session}
	const one = `"session" = '$session'`
	d.Annotations.List = []Annotation{runAnnotation(one), {
		Name: "Load phases", Datasource: influx, Enable: true, IconColor: "rgba(255, 200, 0, 0.3)",
		Query:      `SELECT "text", "end_ms", "phase" FROM "crank_phase" WHERE ` + one + ` AND $timeFilter`,
		TextColumn: "text", TitleColumn: "phase", TimeEndColumn: "end_ms"}}
	const bySample = one + ` AND $timeFilter GROUP BY "service", "endpoint"`
	panels := []metric{
		{"CPU", `"benchmarks/cpu"`, unitPercent},
		{"Lock contention", `"runtime-counter/lock-contention"`, unitMsPerSec},
		{"Exceptions/sec", `"runtime-counter/exception-count"`, unitPerSec},
		{"GC pause", `"runtime-counter/gc-pause"`, unitMsPerSec},
		{"Working set", `"benchmarks/working-set"`, unitMB},
	}
	rps := panel(1, "timeseries", "Requests/sec (per second)", unitRPS, grid(0, 0), "time_series",
		fmt.Sprintf(`SELECT %q AS "server" FROM "crank_timeline" WHERE %s`, measure.RequestsPerSecond, bySample),
		"$tag_service #$tag_endpoint $col")
	rps.Targets = append(rps.Targets, target("B", "time_series",
		fmt.Sprintf(`SELECT %q AS "client" FROM "crank_timeline" WHERE %s`, measure.BuiltinRPSPerSecond, bySample),
		"$tag_service #$tag_endpoint $col"))
	rps.Description = "Server side: the application's request counter, sampled every second. " +
		"Client side: the built-in generator's per-second timeline."
	d.Panels = append(d.Panels, rps)
	for i, m := range panels {
		q := fmt.Sprintf(`SELECT %s FROM "crank_timeline" WHERE %s`, m.field, bySample)
		d.Panels = append(d.Panels, panel(i+2, "timeseries", m.title, m.unit, grid(i+1, 0), "time_series", q,
			"$tag_service #$tag_endpoint $col"))
	}
	y, id := (len(panels)+2)/2*8, len(panels)+1
	latency := panel(id+1, "table", "Latency", unitMs, GridPos{H: 6, W: 12, X: 0, Y: y}, "table",
		`SELECT "http/latency/50" AS "p50", "http/latency/99" AS "p99", "http/latency/max" AS "max", "http/latency/mean" AS "mean" `+
			`FROM "crank_summary" WHERE `+one+` AND $timeFilter GROUP BY "service"`, "")
	errs := panel(id+2, "table", "Errors", unitCount, GridPos{H: 6, W: 12, X: 12, Y: y}, "table",
		`SELECT "http/requests/errors" AS "socket and call errors", "http/requests/badresponses" AS "bad responses", `+
			`"http/requests" AS "requests" FROM "crank_summary" WHERE `+one+` AND $timeFilter GROUP BY "service"`, "")
	results := panel(id+3, "table", "Results", "", GridPos{H: 8, W: 24, X: 0, Y: y + 6}, "table",
		`SELECT * FROM "crank_summary" WHERE `+one+` AND $timeFilter GROUP BY "service"`, "")
	return withPanels(d, latency, errs, results)
}

// Compare puts two variants of one scenario side by side (never averaged across scenarios):
// B/A ratios with the spread across iterations, trends of both, and the per-second requests of
// two sessions overlaid from their start.
func Compare() Dashboard {
	d := base("crank-compare", "Crank compare variants",
		"Variant B against variant A for one scenario: ratios (B/A) with the standard deviation across iterations "+
			"(crank_iteration), trends, and two sessions overlaid from their start.", "now-30d")
	scenario := tagVar("scenario", "Scenario", "crank_summary", "", false)
	same := `"scenario" = '$scenario' AND "profile" =~ /^$profile$/ AND "machine" =~ /^$machine$/`
	va := tagVar("a", "Variant A", "crank_summary", `"scenario" = '$scenario'`, false)
	va.Query = `SHOW TAG VALUES FROM "crank_summary" WITH KEY = "variant" WHERE "scenario" = '$scenario'`
	va.Definition = va.Query
	vb := va
	vb.Name, vb.Label = "b", "Variant B"
	before := tagVar("before", "Session before", "crank_timeline", `"scenario" = '$scenario'`, false)
	before.Query = `SHOW TAG VALUES FROM "crank_timeline" WITH KEY = "session" WHERE "scenario" = '$scenario'`
	before.Definition, before.Sort = before.Query, 2
	after := before
	after.Name, after.Label = "after", "Session after"
	d.Templating.List = []Variable{scenario, tagVar("profile", "Profile", "crank_summary", `"scenario" = '$scenario'`, true),
		tagVar("machine", "Machine", "crank_summary", `"scenario" = '$scenario'`, true), va, vb, before, after}
	d.Annotations.List = []Annotation{runAnnotation(`"scenario" = '$scenario' AND "variant" =~ /^($a|$b)$/`)}
	ratio := ratioPanel(1, same)
	d.Panels = []Panel{ratio}
	for i, m := range trends()[:4] {
		q := fmt.Sprintf(`SELECT mean(%q) FROM "crank_summary" WHERE %s AND ("variant" = '$a' OR "variant" = '$b') AND $timeFilter `+
			`GROUP BY time($__interval), "scenario", "variant", "machine", "service" fill(none)`, m.field, same)
		d.Panels = append(d.Panels, panel(i+2, "timeseries", m.title+", A and B", m.unit, grid(i, 9), "time_series", q,
			"$tag_variant $tag_machine $tag_service"))
	}
	overlay := panel(6, "xychart", "Requests/sec from run start, before and after", unitRPS, GridPos{H: 9, W: 24, X: 0, Y: 25}, "table",
		overlayQuery("before"), "")
	overlay.Targets = append(overlay.Targets, target("B", "table", overlayQuery("after"), ""))
	overlay.Options = map[string]any{"seriesMapping": "auto", "dims": map[string]any{"x": "elapsed_s"}}
	return withPanels(d, overlay)
}

func overlayQuery(session string) string {
	return fmt.Sprintf(`SELECT "elapsed_s", "runtime-counter/requests-per-second" AS "%s" FROM "crank_timeline" `+
		`WHERE "session" = '$%s' AND "runtime-counter/requests-per-second" >= 0 AND $timeFilter`, session, session)
}

// ratioPanel is the table of variant B against A per scenario and service: each side's mean and
// standard deviation across iterations, and B/A computed by Grafana.
func ratioPanel(id int, same string) Panel {
	side := func(v string) string {
		return fmt.Sprintf(`SELECT mean("http/rps/mean") AS "rps %[1]s", stddev("http/rps/mean") AS "rps sd %[1]s", `+
			`mean("http/latency/99") AS "p99 %[1]s", mean("benchmarks/cpu") AS "cpu %[1]s", count("http/rps/mean") AS "iterations %[1]s" `+
			`FROM "crank_iteration" WHERE %[2]s AND "variant" = '$%[3]s' AND $timeFilter GROUP BY "scenario", "service"`,
			map[string]string{"a": "A", "b": "B"}[v], same, v)
	}
	p := panel(id, "table", "Variant B / A", "", GridPos{H: 9, W: 24, X: 0, Y: 0}, "table", side("a"), "")
	p.Targets = append(p.Targets, target("B", "table", side("b"), ""))
	p.Description = "Means and standard deviations across iterations (crank_iteration) of each variant; B/A ratios."
	calc := func(name, left, right string) Transformation {
		return Transformation{ID: "calculateField", Options: map[string]any{"mode": "binary", "alias": name,
			"binary": map[string]any{"left": left, "operator": "/", "right": right}}}
	}
	p.Transformations = []Transformation{
		{ID: "joinByField", Options: map[string]any{"byField": "service", "mode": "outer"}},
		calc("rps B/A", "rps B", "rps A"), calc("p99 B/A", "p99 B", "p99 A"), calc("cpu B/A", "cpu B", "cpu A"),
	}
	p.FieldConfig.Overrides = append(append(unitOf(unitRPS, "rps A", "rps B", "rps sd A", "rps sd B"),
		unitOf(unitMs, "p99 A", "p99 B")...), unitOf(unitPercent, "cpu A", "cpu B")...)
	return p
}
