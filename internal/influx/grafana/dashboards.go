package grafana

import "fmt"

// Files maps each committed dashboard file name (in dashboards/) to its dashboard.
func Files() map[string]Dashboard {
	return map[string]Dashboard{
		"crank-nightly.json": Nightly(),
		"crank-run.json":     RunTimeline(),
		"crank-compare.json": Compare(),
	}
}

// where filters on the scenario and profile variables.
const where = `"scenario" =~ /^$scenario$/ AND "profile" =~ /^$profile$/`

func scenarioVar(from string, multi bool) Variable {
	return tagVar("scenario", "Scenario", from, "", multi)
}

func profileVar(from string, multi bool) Variable {
	return tagVar("profile", "Profile", from, `"scenario" =~ /^$scenario$/`, multi)
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
		Time: TimeRange{From: from, To: "now"}, Annotations: Annotations{List: []Annotation{}}}
}

// panel is a panel with one raw InfluxQL query.
func panel(id int, kind, title, unit string, pos GridPos, format, query, alias string) Panel {
	return Panel{ID: id, Type: kind, Title: title, Datasource: influx, GridPos: pos,
		Targets: []Target{{RefID: "A", Datasource: influx, Query: query, RawQuery: true,
			ResultFormat: format, Alias: alias}},
		FieldConfig: FieldConfig{Defaults: FieldDefaults{Unit: unit}, Overrides: []any{}}}
}

// grid places the i-th of a list of half-width panels.
func grid(i, y0 int) GridPos {
	return GridPos{H: 8, W: 12, X: (i % 2) * 12, Y: y0 + (i/2)*8}
}

// metric is one measurement a dashboard plots.
type metric struct {
	title, field, unit string
}

// trends are the values the dashboards follow.
func trends() []metric {
	return []metric{
		{"Requests/sec", "http/rps/mean", "reqps"},
		{"Latency p99", "http/latency/99", "ms"},
		{"CPU", "benchmarks/cpu", "percent"},
		{"Lock contention", "runtime-counter/lock-contention", "suffix: ms/s"},
		{"Exceptions/sec", "runtime-counter/exception-count", "suffix: /s"},
	}
}

func runAnnotation(filter string) Annotation {
	return Annotation{Name: "Runs", Datasource: influx, Enable: true, IconColor: "rgba(0, 211, 255, 1)",
		Query:      `SELECT "text", "session", "description" FROM "crank_run" WHERE ` + filter + ` AND $timeFilter`,
		TextColumn: "text", TitleColumn: "session"}
}
