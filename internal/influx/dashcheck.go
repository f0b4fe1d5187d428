package influx

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// dashboard is the part of a Grafana dashboard that CheckDashboards runs.
type dashboard struct {
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Query      string `json:"query"`
			Multi      bool   `json:"multi"`
			IncludeAll bool   `json:"includeAll"`
			Current    *struct {
				Value any `json:"value"`
			} `json:"current"`
		} `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []struct {
			Name   string `json:"name"`
			Query  string `json:"query"`
			Enable bool   `json:"enable"`
		} `json:"list"`
	} `json:"annotations"`
	Panels []dashPanel `json:"panels"`
}

type dashPanel struct {
	Title   string `json:"title"`
	Targets []struct {
		RefID    string `json:"refId"`
		Query    string `json:"query"`
		RawQuery bool   `json:"rawQuery"`
	} `json:"targets"`
	Panels []dashPanel `json:"panels"` // inside a row
}

// CheckDashboards runs every query of the Grafana dashboards (*.json) in dir against the
// InfluxDB 1.x database db at influxURL, as Grafana would: each template variable takes its
// default when the data has it, else its first value; $timeFilter spans the runs of crank_run
// (an hour before the first to a day after the last). It returns every panel query that fails
// or returns no data, and every annotation query that fails.
func CheckDashboards(ctx context.Context, influxURL, db string, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("dashboards in %s: none found (%v)", dir, err)
	}
	from, to, err := runSpan(ctx, influxURL, db)
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		if err := checkDashboard(ctx, influxURL, db, f, from, to); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runSpan is the time range CheckDashboards queries: around the runs in crank_run.
func runSpan(ctx context.Context, url, db string) (from, to time.Time, err error) {
	edge := func(fn string) (time.Time, error) {
		s, err := Query(ctx, url, "", db, fmt.Sprintf(`SELECT %s("text") FROM %q`, fn, MeasurementRun))
		if err != nil {
			return time.Time{}, err
		}
		if len(s) == 0 || len(s[0].Values) == 0 {
			return time.Time{}, fmt.Errorf("database %q has no %s point", db, MeasurementRun)
		}
		ms, _ := s[0].Values[0][0].(float64)
		return time.UnixMilli(int64(ms)), nil
	}
	if from, err = edge("first"); err != nil {
		return from, to, err
	}
	to, err = edge("last")
	return from.Add(-time.Hour), to.Add(24 * time.Hour), err
}

func checkDashboard(ctx context.Context, url, db, path string, from, to time.Time) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	name := filepath.Base(path)
	vars := builtins(from, to)
	for _, v := range d.Templating.List {
		val, err := resolveVar(ctx, url, db, v.Query, v.Type, v.Current, vars)
		if err != nil {
			return fmt.Errorf("%s: variable %s: %w", name, v.Name, err)
		}
		if v.Multi || v.IncludeAll { // Grafana escapes the values of such variables for regexes
			val = strings.ReplaceAll(regexp.QuoteMeta(val), "/", `\/`)
		}
		vars[v.Name] = val
	}
	var errs []error
	for _, a := range d.Annotations.List {
		if a.Query == "" {
			continue
		}
		if _, err := Query(ctx, url, "", db, substitute(a.Query, vars)); err != nil {
			errs = append(errs, fmt.Errorf("%s: annotation %q: %w", name, a.Name, err))
		}
	}
	for _, p := range flatten(d.Panels) {
		if err := checkPanel(ctx, url, db, p, vars); err != nil {
			errs = append(errs, fmt.Errorf("%s: panel %q: %w", name, p.Title, err))
		}
	}
	return errors.Join(errs...)
}

func flatten(panels []dashPanel) []dashPanel {
	var out []dashPanel
	for _, p := range panels {
		out = append(out, p)
		out = append(out, flatten(p.Panels)...)
	}
	return out
}

func checkPanel(ctx context.Context, url, db string, p dashPanel, vars map[string]string) error {
	if len(p.Targets) == 0 && len(p.Panels) == 0 {
		return errors.New("no query")
	}
	for _, t := range p.Targets {
		if !t.RawQuery || t.Query == "" {
			return fmt.Errorf("target %s: not a raw InfluxQL query", t.RefID)
		}
		q := substitute(t.Query, vars)
		series, err := Query(ctx, url, "", db, q)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(series, func(s Series) bool { return len(s.Values) > 0 }) {
			return fmt.Errorf("no data for %s", q)
		}
	}
	return nil
}

// resolveVar runs a query variable and picks its default when the data has it, else its first value.
func resolveVar(ctx context.Context, url, db, query, kind string, current *struct {
	Value any `json:"value"`
}, vars map[string]string) (string, error) {
	def := ""
	if current != nil {
		def, _ = current.Value.(string)
	}
	if kind != "query" {
		if def == "" {
			return "", fmt.Errorf("type %q without a default value", kind)
		}
		return def, nil
	}
	series, err := Query(ctx, url, "", db, substitute(query, vars))
	if err != nil {
		return "", err
	}
	var values []string
	for _, s := range series {
		col := s.Column("value")
		if col == nil && len(s.Columns) > 0 {
			col = s.Column(s.Columns[0]) // SHOW TAG KEYS: tagKey
		}
		for _, v := range col {
			values = append(values, fmt.Sprint(v))
		}
	}
	if len(values) == 0 {
		return "", fmt.Errorf("no value for %s", query)
	}
	if slices.Contains(values, def) {
		return def, nil
	}
	return values[0], nil
}

// builtins are Grafana's time variables for the range [from, to] at about 1000 points.
func builtins(from, to time.Time) map[string]string {
	interval := max(to.Sub(from)/1000, time.Second).Milliseconds()
	return map[string]string{
		"timeFilter":      fmt.Sprintf("time >= %dms and time <= %dms", from.UnixMilli(), to.UnixMilli()),
		"__interval":      fmt.Sprintf("%dms", interval),
		"__interval_ms":   fmt.Sprint(interval),
		"__from":          fmt.Sprint(from.UnixMilli()),
		"__to":            fmt.Sprint(to.UnixMilli()),
		"interval":        fmt.Sprintf("%dms", interval),
		"__rate_interval": fmt.Sprintf("%dms", 4*interval),
	}
}

// substitute replaces $name, ${name} and [[name]], longest names first.
func substitute(q string, vars map[string]string) string {
	names := slices.SortedFunc(maps.Keys(vars), func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, n := range names {
		v := vars[n]
		q = strings.NewReplacer("${"+n+"}", v, "[["+n+"]]", v, "$"+n, v).Replace(q)
	}
	return q
}
