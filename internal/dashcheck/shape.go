package dashcheck

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/influx"
)

// checkAnnotation runs an annotation query; at the default setting (want) it must return rows
// holding every column the annotation names.
func checkAnnotation(ctx context.Context, url, db string, a annotationQuery, subs map[string]string, want bool) error {
	series, err := influx.Query(ctx, url, "", db, substitute(a.Query, subs))
	if err != nil || !want {
		return err
	}
	named := []string{a.TextColumn, a.TitleColumn, a.TimeEndColumn}
	named = append(named, strings.Split(a.TagsColumn, ",")...)
	rows := 0
	for _, s := range series {
		rows += len(s.Values)
		for _, n := range named {
			if n = strings.TrimSpace(n); n != "" && !slices.Contains(columns(s), n) {
				return fmt.Errorf("no column %q in the answer (%s)", n, strings.Join(columns(s), ", "))
			}
		}
	}
	if rows == 0 {
		return fmt.Errorf("no rows")
	}
	return nil
}

// columns are a series' columns as Grafana shows them: its own and its GROUP BY tags.
func columns(s influx.Series) []string {
	out := slices.Clone(s.Columns)
	for k := range s.Tags {
		out = append(out, k)
	}
	return out
}

// checkPanelData runs a panel's targets and checks the data fits the panel: some target returns
// data (a panel may draw a series from whichever source a run has); a time series panel's series
// have >= 2 points each; a table or x/y chart holds every column its overrides, transformations,
// links and dimensions name.
func checkPanelData(ctx context.Context, url, db string, p boardPanel, subs map[string]string) error {
	var cols, queries []string
	points := 0
	for _, t := range p.Targets {
		if !t.RawQuery || t.Query == "" {
			continue // reported by panelErrors
		}
		q := substitute(t.Query, subs)
		queries = append(queries, q)
		series, err := influx.Query(ctx, url, "", db, q)
		if err != nil {
			return err
		}
		for _, s := range series {
			n := valuedRows(s)
			points += n
			if p.Type == "timeseries" && n < 2 {
				return fmt.Errorf("time series %v has %d point(s), want >= 2, for %s", s.Tags, n, q)
			}
			cols = append(cols, columns(s)...)
		}
	}
	if points == 0 {
		return fmt.Errorf("no data for %s", strings.Join(queries, "; "))
	}
	for _, n := range namedColumns(p) {
		if !slices.Contains(cols, n) {
			return fmt.Errorf("no column %q in the answers (%s)", n, strings.Join(slices.Compact(slices.Sorted(slices.Values(cols))), ", "))
		}
	}
	return nil
}

// valuedRows counts a series' rows holding a value besides the time.
func valuedRows(s influx.Series) int {
	n := 0
	for _, row := range s.Values {
		for i, v := range row {
			if v != nil && (i >= len(s.Columns) || s.Columns[i] != "time") {
				n++
				break
			}
		}
	}
	return n
}

var dataFieldRef = regexp.MustCompile(`\$\{__data\.fields\.([^}]+)\}`)

// namedColumns are the columns a table or x/y chart panel names: by overrides (byName),
// transformations (joinByField, calculateField), data links and the x dimension.
func namedColumns(p boardPanel) []string {
	if p.Type != "table" && p.Type != "xychart" {
		return nil
	}
	var out []string
	for _, o := range p.FieldConfig.Overrides {
		if s, ok := o.Matcher.Options.(string); ok && o.Matcher.ID == "byName" {
			out = append(out, s)
		}
		for _, pr := range o.Properties {
			for _, m := range dataFieldRef.FindAllStringSubmatch(fmt.Sprint(pr.Value), -1) {
				out = append(out, m[1])
			}
		}
	}
	for _, t := range p.Transformations {
		if s, ok := t.Options["byField"].(string); ok {
			out = append(out, s)
		}
		if b, ok := t.Options["binary"].(map[string]any); ok {
			for _, k := range []string{"left", "right"} {
				if s, ok := b[k].(string); ok && !calculated(p, s) {
					out = append(out, s)
				}
			}
		}
	}
	if dims, ok := p.Options["dims"].(map[string]any); ok { // xychart before Grafana 11.1
		if x, ok := dims["x"].(string); ok {
			out = append(out, x)
		}
	}
	series, _ := p.Options["series"].([]any) // xychart since Grafana 11.1: field matchers
	for _, s := range series {
		for _, axis := range []string{"x", "y", "color", "size"} {
			if name, ok := byName(s, axis); ok {
				out = append(out, name)
			}
		}
	}
	return out
}

// byName is the field an xychart series' axis (x, y, ...) names with a byName matcher.
func byName(series any, axis string) (string, bool) {
	s, _ := series.(map[string]any)
	a, _ := s[axis].(map[string]any)
	m, _ := a["matcher"].(map[string]any)
	name, ok := m["options"].(string)
	return name, ok && m["id"] == "byName"
}

// calculated tells whether a column is made by one of the panel's calculateField transformations.
func calculated(p boardPanel, name string) bool {
	return slices.ContainsFunc(p.Transformations, func(t struct {
		ID      string         `json:"id"`
		Options map[string]any `json:"options"`
	}) bool {
		return t.ID == "calculateField" && t.Options["alias"] == name
	})
}
