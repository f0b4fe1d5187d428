package grafana

//lint:file-ignore SA1019 see dashboards.go: the committed dashboards are the v1 JSON model.

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
	"github.com/grafana/grafana-foundation-sdk/go/xychart"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// RunLink opens the run dashboard on a crank_run row's session and time range (fields session,
// from_ms and to_ms of the row).
const RunLink = "/d/crank-run/crank-run-timeline?var-session=${__data.fields.session}" +
	"&from=${__data.fields.from_ms}&to=${__data.fields.to_ms}"

// Nightly follows each series over time: one line per scenario, profile, machine, arch, variant,
// branch and service; change points as annotations on their series; the runs, each linked to
// its run dashboard; and the errors.
func Nightly() *dashboard.DashboardBuilder {
	d := base("crank-nightly", "Crank nightly trends",
		"One point per run (crank_summary), one line per scenario, machine, variant, branch and service. "+
			"Annotations: runs (crank_run) and change points (crank_changepoint).", "now-30d").
		Variables(identityVars("crank_summary")).
		Annotation(runAnnotation(filter(runTags))).
		Annotation(annotation("Change points", "rgba(255, 96, 96, 1)", Query{
			Query: `SELECT "text", "metric", "direction", "change_pct", "service", "machine", "variant" FROM "crank_changepoint" WHERE ` +
				filter([]string{"scenario", "profile", "machine", "arch", "variant"}) + ` AND $timeFilter`,
			TextColumn: "text", TagsColumn: "metric,service,machine,variant", TitleColumn: "direction"}))
	where := filter(seriesTags)
	const by = `GROUP BY "scenario", "profile", "machine", "arch", "variant", "branch", "service"`
	const alias = "$tag_scenario $tag_machine $tag_variant $tag_branch $tag_service"
	line := func(id int, m metric) *timeseries.PanelBuilder {
		q := fmt.Sprintf(`SELECT %q FROM "crank_summary" WHERE %s AND $timeFilter %s`, m.field, where, by)
		return panel(lines(), id, m.title, m.unit, half(), target("A", "time_series", q, alias))
	}
	id := 0
	for _, m := range trends() {
		id++
		d = d.WithPanel(line(id, m))
	}
	id++
	d = d.WithRow(dashboard.NewRowBuilder("Errors").Id(uint32(id)))
	for _, m := range errorMetrics() {
		id++
		d = d.WithPanel(line(id, m))
	}
	id++
	runs := panel(grid(), id, "Runs", "", full(10), target("A", "table",
		`SELECT "session", "text", "returnCode", "from_ms", "to_ms" FROM "crank_run" WHERE `+filter(runTags)+
			` AND $timeFilter ORDER BY time DESC`, "")).
		Description("Each run; its session opens the run dashboard on the run's time range.").
		OverrideByName("session", []dashboard.DynamicConfigValue{{Id: "links", Value: []DataLink{{Title: "Run timeline", URL: RunLink}}}})
	return d.WithPanel(unitOf(runs, "dateTimeAsIso", "from_ms", "to_ms"))
}

// RunTimeline shows one session second by second: per-second requests (the application's counter
// and the built-in generator's), CPU, runtime counters and memory, with the load phases shaded;
// its latency, errors and results. Opened from the nightly runs table with the run's time range.
func RunTimeline() *dashboard.DashboardBuilder {
	const one = `"session" = '$session'`
	d := base("crank-run", "Crank run timeline",
		"One session's samples (crank_timeline), warm-up and cool-down shaded (crank_phase). "+
			"Open it from the nightly dashboard's runs table to get the run's time range.", "now-24h").
		WithVariable(tagVar("scenario", "Scenario", tagValues("crank_timeline", "scenario", ""), true)).
		WithVariable(tagVar("profile", "Profile", tagValues("crank_timeline", "profile", `"scenario" =~ /^$scenario$/`), true)).
		WithVariable(tagVar("session", "Session", tagValues("crank_timeline", "session",
			`"scenario" =~ /^$scenario$/ AND "profile" =~ /^$profile$/`), false).Sort(dashboard.VariableSortAlphabeticalDesc)).
		Annotation(runAnnotation(one)).
		Annotation(annotation("Load phases", "rgba(255, 200, 0, 0.3)", Query{
			Query:      `SELECT "text", "end_ms", "phase" FROM "crank_phase" WHERE ` + one + ` AND $timeFilter`,
			TextColumn: "text", TitleColumn: "phase", TimeEndColumn: "end_ms"}))
	const bySample = one + ` AND $timeFilter GROUP BY "service", "endpoint"`
	const alias = "$tag_service #$tag_endpoint $col"
	perSecond := func(field, as string) string {
		return fmt.Sprintf(`SELECT %q AS %q FROM "crank_timeline" WHERE %s`, field, as, bySample)
	}
	d = d.WithPanel(panel(lines(), 1, "Requests/sec (per second)", unitRPS, half(),
		target("A", "time_series", perSecond(measure.RequestsPerSecond, "server"), alias),
		target("B", "time_series", perSecond(measure.BuiltinRPSPerSecond, "client"), alias)).
		Description("Server side: the application's request counter, sampled every second. " +
			"Client side: the built-in generator's per-second timeline."))
	panels := []metric{
		{"CPU", `"benchmarks/cpu"`, unitPercent},
		{"Lock contention", `"runtime-counter/lock-contention"`, unitMsPerSec},
		{"Exceptions/sec", `"runtime-counter/exception-count"`, unitPerSec},
		{"GC pause", `"runtime-counter/gc-pause"`, unitMsPerSec},
		{"Working set", `"benchmarks/working-set"`, unitMB},
	}
	for i, m := range panels {
		q := fmt.Sprintf(`SELECT %s FROM "crank_timeline" WHERE %s`, m.field, bySample)
		p := panel(lines(), i+2, m.title, m.unit, half(), target("A", "time_series", q, alias))
		if m.field == `"benchmarks/cpu"` { // the host's steal beside the jobs' CPU: a dip it explains
			p = p.WithTarget(target("B", "time_series", perSecond(measure.CPUSteal, "steal"), alias)).
				Description("Each job's CPU (% of the machine), and the share of the machine's CPU time its " +
					"hypervisor gave to other guests (steal), as sampled with it.")
		}
		d = d.WithPanel(p)
	}
	id := len(panels) + 1
	summary := func(columns string) Query {
		return target("A", "table", `SELECT `+columns+` FROM "crank_summary" WHERE `+one+` AND $timeFilter GROUP BY "service"`, "")
	}
	return d.WithPanel(panel(grid(), id+1, "Latency", unitMs, size{12, 6},
		summary(`"http/latency/50" AS "p50", "http/latency/99" AS "p99", "http/latency/max" AS "max", "http/latency/mean" AS "mean"`))).
		WithPanel(panel(grid(), id+2, "Errors", unitCount, size{12, 6},
			summary(`"http/requests/errors" AS "socket and call errors", "http/requests/badresponses" AS "bad responses", `+
				`"http/requests" AS "requests"`))).
		WithPanel(panel(grid(), id+3, "Results", "", full(8), summary("*")))
}

// Compare puts two variants of one scenario side by side (never averaged across scenarios):
// B/A ratios with the spread across iterations, trends of both, and the per-second requests of
// two sessions overlaid from their start.
func Compare() *dashboard.DashboardBuilder {
	same := `"scenario" = '$scenario' AND "profile" =~ /^$profile$/ AND "machine" =~ /^$machine$/`
	ofScenario := `"scenario" = '$scenario'`
	variants := tagValues("crank_summary", "variant", ofScenario)
	sessions := tagValues("crank_timeline", "session", ofScenario)
	d := base("crank-compare", "Crank compare variants",
		"Variant B against variant A for one scenario: ratios (B/A) with the standard deviation across iterations "+
			"(crank_iteration), trends, and two sessions overlaid from their start.", "now-30d").
		Variables([]cog.Builder[dashboard.VariableModel]{
			tagVar("scenario", "Scenario", tagValues("crank_summary", "scenario", ""), false),
			tagVar("profile", "Profile", tagValues("crank_summary", "profile", ofScenario), true),
			tagVar("machine", "Machine", tagValues("crank_summary", "machine", ofScenario), true),
			tagVar("a", "Variant A", variants, false), tagVar("b", "Variant B", variants, false),
			tagVar("before", "Session before", sessions, false).Sort(dashboard.VariableSortAlphabeticalDesc),
			tagVar("after", "Session after", sessions, false).Sort(dashboard.VariableSortAlphabeticalDesc),
		}).
		Annotation(runAnnotation(`"scenario" = '$scenario' AND "variant" =~ /^($a|$b)$/`)).
		WithPanel(ratioPanel(1, same))
	for i, m := range trends()[:4] {
		q := fmt.Sprintf(`SELECT mean(%q) FROM "crank_summary" WHERE %s AND ("variant" = '$a' OR "variant" = '$b') AND $timeFilter `+
			`GROUP BY time($__interval), "scenario", "variant", "machine", "service" fill(none)`, m.field, same)
		d = d.WithPanel(panel(lines(), i+2, m.title+", A and B", m.unit, half(),
			target("A", "time_series", q, "$tag_variant $tag_machine $tag_service")))
	}
	// One series per query (session): x the seconds since the session's start, y the rest. The
	// options are xychart's 11.1 model, the SDK's; without pluginVersion Grafana would take them
	// for the older model (seriesMapping, dims) and migrate them again.
	elapsed := xychart.NewXychartXYSeriesConfigXBuilder().
		Matcher(xychart.NewMatcherConfigBuilder().Id("byName").Options("elapsed_s"))
	return d.WithPanel(pluginVersion{"11.1.0", panel(xychart.NewPanelBuilder(), 6, "Requests/sec from run start, before and after", unitRPS, full(9),
		target("A", "table", overlayQuery("before"), ""), target("B", "table", overlayQuery("after"), "")).
		Mapping(xychart.SeriesMappingAuto).Legend(legend()).Tooltip(tooltip()).
		Series([]cog.Builder[xychart.XYSeriesConfig]{xychart.NewXYSeriesConfigBuilder().X(elapsed)})})
}

// pluginVersion builds a panel saved by the given version of its plugin (the SDK's xychart
// builder has no PluginVersion).
type pluginVersion struct {
	version string
	panel   cog.Builder[dashboard.Panel]
}

func (p pluginVersion) Build() (dashboard.Panel, error) {
	b, err := p.panel.Build()
	b.PluginVersion = &p.version
	return b, err
}

func overlayQuery(session string) string {
	return fmt.Sprintf(`SELECT "elapsed_s", "runtime-counter/requests-per-second" AS "%s" FROM "crank_timeline" `+
		`WHERE "session" = '$%s' AND "runtime-counter/requests-per-second" >= 0 AND $timeFilter`, session, session)
}

// ratioPanel is the table of variant B against A per scenario and service: each side's mean and
// standard deviation across iterations, and B/A computed by Grafana.
func ratioPanel(id int, same string) *table.PanelBuilder {
	side := func(ref, v string) Query {
		return target(ref, "table", fmt.Sprintf(`SELECT mean("http/rps/mean") AS "rps %[1]s", stddev("http/rps/mean") AS "rps sd %[1]s", `+
			`mean("http/latency/99") AS "p99 %[1]s", mean("benchmarks/cpu") AS "cpu %[1]s", count("http/rps/mean") AS "iterations %[1]s" `+
			`FROM "crank_iteration" WHERE %[2]s AND "variant" = '$%[3]s' AND $timeFilter GROUP BY "scenario", "service"`,
			map[string]string{"a": "A", "b": "B"}[v], same, v), "")
	}
	calc := func(name, left, right string) dashboard.DataTransformerConfig {
		return dashboard.DataTransformerConfig{Id: "calculateField", Options: map[string]any{"mode": "binary", "alias": name,
			"binary": map[string]any{"left": left, "operator": "/", "right": right}}}
	}
	p := panel(grid(), id, "Variant B / A", "", full(9), side("A", "a"), side("B", "b")).
		Description("Means and standard deviations across iterations (crank_iteration) of each variant; B/A ratios.").
		Transformations([]dashboard.DataTransformerConfig{
			{Id: "joinByField", Options: map[string]any{"byField": "service", "mode": "outer"}},
			calc("rps B/A", "rps B", "rps A"), calc("p99 B/A", "p99 B", "p99 A"), calc("cpu B/A", "cpu B", "cpu A"),
		})
	p = unitOf(p, unitRPS, "rps A", "rps B", "rps sd A", "rps sd B")
	p = unitOf(p, unitMs, "p99 A", "p99 B")
	return unitOf(p, unitPercent, "cpu A", "cpu B")
}
