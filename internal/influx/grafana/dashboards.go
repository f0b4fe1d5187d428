package grafana

import (
	"fmt"
	"strings"
)

// Files maps each committed dashboard file name (in dashboards/) to its dashboard.
func Files() map[string]Dashboard {
	return map[string]Dashboard{
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
func identityVars(from string) []Variable {
	labels := map[string]string{"scenario": "Scenario", "profile": "Profile", "machine": "Machine",
		"arch": "Arch", "variant": "Variant", "branch": "Branch"}
	var out []Variable
	for _, t := range seriesTags {
		f := ""
		if t == "profile" {
			f = `"scenario" =~ /^$scenario$/`
		}
		out = append(out, tagVar(t, labels[t], from, f, true))
	}
	return out
}

// tagVar is a variable listing a tag's values (SHOW TAG VALUES), optionally filtered.
func tagVar(name, label, from, filter string, multi bool) Variable {
	q := fmt.Sprintf(`SHOW TAG VALUES FROM %q WITH KEY = %q`, from, name)
	if filter != "" {
		q += " WHERE " + filter
	}
	v := Variable{Name: name, Label: label, Type: "query", Datasource: influx, Query: q, Definition: q,
		Refresh: 1, Sort: 1, Multi: multi, IncludeAll: multi}
	if multi {
		v.AllValue = ".*"
		v.Current = &Current{Text: "All", Value: "$__all"}
	}
	return v
}

func base(uid, title, description, from string) Dashboard {
	return Dashboard{UID: uid, Title: title, Description: description, Tags: []string{"crank"},
		Editable: true, SchemaVersion: 39, Version: 1, Timezone: "browser",
		Time: TimeRange{From: from, To: "now"}, Annotations: Annotations{List: []Annotation{}},
		Links: []Link{{Title: "Crank", Type: "dashboards", Tags: []string{"crank"}, AsDropdown: true, KeepTime: true}}}
}

// panel is a panel with one raw InfluxQL query.
func panel(id int, kind, title, unit string, pos GridPos, format, query, alias string) Panel {
	ds := influx
	return Panel{ID: id, Type: kind, Title: title, Datasource: &ds, GridPos: pos,
		Targets:     []Target{target("A", format, query, alias)},
		FieldConfig: &FieldConfig{Defaults: FieldDefaults{Unit: unit}, Overrides: []Override{}}}
}

func target(ref, format, query, alias string) Target {
	return Target{RefID: ref, Datasource: influx, Query: query, RawQuery: true, ResultFormat: format, Alias: alias}
}

// row is a row header at height y.
func row(id int, title string, y int) Panel {
	collapsed := false
	return Panel{ID: id, Type: "row", Title: title, GridPos: GridPos{H: 1, W: 24, X: 0, Y: y}, Collapsed: &collapsed}
}

// unitOf sets the unit of the named columns of a table.
func unitOf(unit string, columns ...string) []Override {
	var out []Override
	for _, c := range columns {
		out = append(out, Override{Matcher: Matcher{ID: "byName", Options: c}, Properties: []Property{{ID: "unit", Value: unit}}})
	}
	return out
}

// grid places the i-th of a list of half-width panels.
func grid(i, y0 int) GridPos {
	return GridPos{H: 8, W: 12, X: (i % 2) * 12, Y: y0 + (i/2)*8}
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

func runAnnotation(filter string) Annotation {
	return Annotation{Name: "Runs", Datasource: influx, Enable: true, IconColor: "rgba(0, 211, 255, 1)",
		Query:      `SELECT "text", "session", "description" FROM "crank_run" WHERE ` + filter + ` AND $timeFilter`,
		TextColumn: "text", TitleColumn: "session"}
}
