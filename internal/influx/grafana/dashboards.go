package grafana

//lint:file-ignore SA1019 the SDK marks its v1 dashboard model deprecated in favour of dashboardv2, which Grafana provisions from files only behind feature toggles; dashboards/ holds the v1 JSON model Grafana's file provisioning loads.

import (
	"fmt"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// Files maps each committed dashboard file name (in dashboards/) to its dashboard's builder.
func Files() map[string]*dashboard.DashboardBuilder {
	return map[string]*dashboard.DashboardBuilder{
		"crank-nightly.json": Nightly(),
		"crank-run.json":     RunTimeline(),
		"crank-compare.json": Compare(),
	}
}

// Identity tags: what a series is (docs/INFLUXDB.md). Each is a template variable of the same
// name; crank_run carries the run-level ones only.
var (
	seriesTags = []string{"scenario", "profile", "machine", "arch", "variant", "branch"}
	runTags    = []string{"scenario", "profile", "variant", "branch"}
)

// filter is the WHERE condition selecting every tag of tags by its variable ("scenario" =~ /^$scenario$/ AND ...).
func filter(tags []string) string {
	parts := make([]string, len(tags))
	for i, t := range tags {
		parts[i] = fmt.Sprintf(`%q =~ /^$%s$/`, t, t)
	}
	return strings.Join(parts, " AND ")
}

// identityVars are the variables of seriesTags listed from measurement from, each multi-valued
// with All (".*"); profile is filtered by the scenario.
func identityVars(from string) []cog.Builder[dashboard.VariableModel] {
	labels := map[string]string{"scenario": "Scenario", "profile": "Profile", "machine": "Machine",
		"arch": "Arch", "variant": "Variant", "branch": "Branch"}
	var out []cog.Builder[dashboard.VariableModel]
	for _, t := range seriesTags {
		f := ""
		if t == "profile" {
			f = `"scenario" =~ /^$scenario$/`
		}
		out = append(out, tagVar(t, labels[t], tagValues(from, t, f), true))
	}
	return out
}

// tagValues is the InfluxQL listing a tag's values, optionally filtered.
func tagValues(from, key, filter string) string {
	q := fmt.Sprintf(`SHOW TAG VALUES FROM %q WITH KEY = %q`, from, key)
	if filter != "" {
		q += " WHERE " + filter
	}
	return q
}

// tagVar is a variable listing the values query lists (SHOW TAG VALUES), refreshed when the
// dashboard loads, sorted; a multi-value one has All (".*") and selects it by default.
func tagVar(name, label, query string, multi bool) *dashboard.QueryVariableBuilder {
	v := dashboard.NewQueryVariableBuilder(name).Label(label).Datasource(influx()).
		Query(dashboard.StringOrMap{String: &query}).Definition(query).
		Refresh(dashboard.VariableRefreshOnDashboardLoad).Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(multi).IncludeAll(multi)
	if multi {
		v = v.AllValue(".*").Current(dashboard.VariableOption{
			Text: dashboard.StringOrArrayOfString{String: cog.ToPtr("All")}, Value: dashboard.StringOrArrayOfString{String: cog.ToPtr("$__all")}})
	}
	return v
}

// base is a dashboard tagged crank, linking to the other crank dashboards (keeping the time range).
func base(uid, title, description, from string) *dashboard.DashboardBuilder {
	return dashboard.NewDashboardBuilder(title).Uid(uid).Description(description).Tags([]string{"crank"}).
		Editable().Timezone("browser").Time(from, "now").Version(1).
		Link(onTop(dashboard.NewDashboardLinkBuilder("Crank").Type(dashboard.DashboardLinkTypeDashboards).
			Tags([]string{"crank"}).AsDropdown(true).KeepTime(true), func(l *dashboard.DashboardLink) { l.Placement = nil }))
}

// onTop builds a dashboard link or annotation toggle that Grafana shows above the panels, its
// usual place: unplace clears the placement the SDK sets by default ("inControlsMenu", the
// dashboard controls menu of Grafana 12).
func onTop[T any](b cog.Builder[T], unplace func(*T)) cog.Builder[T] { return placed[T]{b, unplace} }

type placed[T any] struct {
	b       cog.Builder[T]
	unplace func(*T)
}

func (p placed[T]) Build() (T, error) {
	v, err := p.b.Build()
	p.unplace(&v)
	return v, err
}

// size is a panel's width (of 24 columns) and height; the SDK lays panels out left to right,
// then top to bottom, in the order they are added.
type size struct{ w, h uint32 }

// half is a half-width panel of the usual height; full a full-width one of height h.
func half() size         { return size{12, 8} }
func full(h uint32) size { return size{24, h} }

// panelBuilder is what the SDK's panel builders (timeseries, table, xychart) have in common.
type panelBuilder[B any] interface {
	Id(id uint32) B
	Title(title string) B
	Datasource(ds common.DataSourceRef) B
	Span(w uint32) B
	Height(h uint32) B
	Unit(unit string) B
	WithTarget(t cog.Builder[variants.Dataquery]) B
	OverrideByName(name string, properties []dashboard.DynamicConfigValue) B
}

// panel sets what every panel has: id, title, the InfluxDB datasource, size, unit and queries.
func panel[B panelBuilder[B]](b B, id int, title, unit string, s size, targets ...Query) B {
	b = b.Id(uint32(id)).Title(title).Datasource(influx()).Span(s.w).Height(s.h)
	if unit != "" {
		b = b.Unit(unit)
	}
	for _, t := range targets {
		b = b.WithTarget(t)
	}
	return b
}

// legend and tooltip are Grafana's defaults for a chart (a legend listed below it; the hovered
// series in the tooltip): the SDK's panel builders leave the legend hidden and the tooltip mode empty.
func legend() *common.VizLegendOptionsBuilder {
	return common.NewVizLegendOptionsBuilder().ShowLegend(true).DisplayMode(common.LegendDisplayModeList).
		Placement(common.LegendPlacementBottom).Calcs([]string{})
}

func tooltip() *common.VizTooltipOptionsBuilder {
	return common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeSingle).Sort(common.SortOrderNone)
}

// lines is a time series panel with Grafana's legend and tooltip.
func lines() *timeseries.PanelBuilder {
	return timeseries.NewPanelBuilder().Legend(legend()).Tooltip(tooltip())
}

// grid is a table panel with Grafana's footer default (hidden, no reducer; the SDK writes null).
func grid() *table.PanelBuilder {
	return table.NewPanelBuilder().Footer(common.NewTableFooterOptionsBuilder().Reducer([]string{}))
}

// unitOf sets the unit of the named columns of a table.
func unitOf[B panelBuilder[B]](b B, unit string, columns ...string) B {
	for _, c := range columns {
		b = b.OverrideByName(c, []dashboard.DynamicConfigValue{{Id: "unit", Value: unit}})
	}
	return b
}

// DataLink is a link from a table cell (the SDK has no data link type of its own).
type DataLink struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// metric is one measurement a dashboard plots.
type metric struct {
	title, field, unit string
}

// Units of crank's measurements in Grafana's unit list: crank's MB is 2^20 bytes (mbytes).
const (
	unitRPS      = "reqps"
	unitMs       = "ms"
	unitPercent  = "percent"
	unitMB       = "mbytes"
	unitMsPerSec = "suffix: ms/s"
	unitPerSec   = "suffix: /s"
	unitCount    = "short"
)

// trends are the values the dashboards follow.
func trends() []metric {
	return []metric{
		{"Requests/sec", "http/rps/mean", unitRPS},
		{"Latency p99", "http/latency/99", unitMs},
		{"CPU", "benchmarks/cpu", unitPercent},
		{"Lock contention", "runtime-counter/lock-contention", unitMsPerSec},
		{"Exceptions/sec", "runtime-counter/exception-count", unitPerSec},
		{"GC pause", "runtime-counter/gc-pause", unitMsPerSec},
		{"CPU steal (the host's other guests)", "benchmarks/cpu/steal", unitPercent},
	}
}

// errorMetrics are the failures a run counts: socket errors (ghz: calls ending in an error
// status) and non-2xx/3xx responses.
func errorMetrics() []metric {
	return []metric{
		{"Socket and call errors", "http/requests/errors", unitCount},
		{"Bad responses", "http/requests/badresponses", unitCount},
	}
}

// annotation is an InfluxQL annotation: each row of query is a mark, textColumn its text.
func annotation(name, color string, q Query) cog.Builder[dashboard.AnnotationQuery] {
	q.RefID, q.Datasource, q.RawQuery, q.FromAnnotations = "Anno", influx(), true, true
	return onTop(dashboard.NewAnnotationQueryBuilder().Name(name).Datasource(influx()).Enable(true).IconColor(color).Target(q),
		func(a *dashboard.AnnotationQuery) { a.Placement = nil })
}

func runAnnotation(filter string) cog.Builder[dashboard.AnnotationQuery] {
	return annotation("Runs", "rgba(0, 211, 255, 1)", Query{
		Query:      `SELECT "text", "session", "description" FROM "crank_run" WHERE ` + filter + ` AND $timeFilter`,
		TextColumn: "text", TitleColumn: "session"})
}
