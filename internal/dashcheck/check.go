// Package dashcheck checks Grafana dashboards against a real InfluxDB 1.x, as Grafana would run
// them: statically (datasources, panel types, units, grid, raw queries) and by running every
// query with the template variables substituted as Grafana's InfluxDB datasource does. It is
// used from tests only (internal/dashcheck's own, on the committed dashboards/, and the nightly
// end-to-end test); Grafana itself does not run here.
package dashcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/crankshaft/crankshaft/internal/influx"
)

// Check validates the Grafana dashboards (*.json) in dir and runs their queries
// against the InfluxDB 1.x database db at influxURL, as Grafana would. Statically: every
// datasource (panels, targets, query variables, annotations) is an InfluxDB one of a uid that
// dir/provisioning/datasources provisions, panel types are Grafana's, units are in Grafana's unit
// list, panels fit the 24-column grid, targets are raw InfluxQL with a known resultFormat. Then
// every query runs with each template variable at its default, at All and at two values (the
// others at their defaults), substituted as Grafana's InfluxDB datasource does, over the span
// of the runs in crank_run; each panel's data must fit its type (shape.go) and each annotation
// must return rows with the columns it names. It returns every problem found, each naming its
// file and the panel, annotation or variable.
func Check(ctx context.Context, influxURL, db string, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("dashboards in %s: none found (%v)", dir, err)
	}
	uids, err := provisionedUIDs(filepath.Join(dir, "provisioning", "datasources"))
	if err != nil {
		return err
	}
	from, to, err := runSpan(ctx, influxURL, db)
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		if err := checkDashboard(ctx, influxURL, db, f, uids, builtins(from, to)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// provisionedUIDs are the uids of the InfluxDB datasources provisioned in dir (none when dir
// does not exist: then any uid is accepted).
func provisionedUIDs(dir string) ([]string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.y*ml"))
	var uids []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var p struct {
			Datasources []struct{ UID, Type string } `yaml:"datasources"`
		}
		if err := yaml.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, d := range p.Datasources {
			if d.Type == "influxdb" && d.UID != "" {
				uids = append(uids, d.UID)
			}
		}
	}
	return uids, nil
}

// runSpan is the time range Check queries: around the runs in crank_run.
func runSpan(ctx context.Context, url, db string) (from, to time.Time, err error) {
	edge := func(fn string) (time.Time, error) {
		s, err := influx.Query(ctx, url, "", db, fmt.Sprintf(`SELECT %s("text") FROM %q`, fn, influx.MeasurementRun))
		if err != nil {
			return time.Time{}, err
		}
		if len(s) == 0 || len(s[0].Values) == 0 {
			return time.Time{}, fmt.Errorf("database %q has no %s point", db, influx.MeasurementRun)
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

func checkDashboard(ctx context.Context, url, db, path string, uids []string, builtin map[string]string) error {
	name := filepath.Base(path)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var d board
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	errs := staticErrors(d, uids)
	vars, err := resolveVars(ctx, url, db, d.Templating.List, builtin)
	if err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, runErrors(ctx, url, db, d, vars, builtin)...)
	}
	for i, e := range errs {
		errs[i] = fmt.Errorf("%s: %w", name, e)
	}
	return errors.Join(errs...)
}

// runErrors runs every annotation and panel query in every setting; it reports each annotation
// and panel once, at the first setting that fails it.
func runErrors(ctx context.Context, url, db string, d board, vars []resolvedVar, builtin map[string]string) []error {
	var errs []error
	all := settings(vars)
	for _, a := range d.Annotations.List {
		if a.BuiltIn != 0 {
			continue // Grafana's own annotations and alerts
		}
		q := a.influxQL()
		if q.Query == "" {
			errs = append(errs, fmt.Errorf("annotation %q: no InfluxQL query", a.Name))
			continue
		}
		for i, s := range all {
			if err := checkAnnotation(ctx, url, db, q, substitutions(vars, s, builtin), i == 0); err != nil {
				errs = append(errs, fmt.Errorf("annotation %q (%s): %w", a.Name, s, err))
				break
			}
		}
	}
	for _, p := range flatten(d.Panels) {
		if p.Type == "row" || len(p.Targets) == 0 {
			continue
		}
		for _, s := range all {
			if err := checkPanelData(ctx, url, db, p, substitutions(vars, s, builtin)); err != nil {
				errs = append(errs, fmt.Errorf("panel %q: %w (%s)", p.Title, err, s))
				break
			}
		}
	}
	return errs
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
