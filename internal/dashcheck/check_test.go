package dashcheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/influxtest"
)

// plantedBoard writes the committed dashboard file, changed by plant, with the provisioned
// datasources, into a folder of its own.
func plantedBoard(t *testing.T, file string, plant func(d map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../dashboards", file))
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	plant(d)
	dir := t.TempDir()
	out, _ := json.Marshal(d)
	prov := filepath.Join(dir, "provisioning", "datasources")
	ds, err := os.ReadFile("../../dashboards/provisioning/datasources/influxdb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(prov, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prov, "influxdb.yaml"), ds, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// firstPanel is the dashboard's first panel (Requests/sec) as JSON.
func firstPanel(d map[string]any) map[string]any { return d["panels"].([]any)[0].(map[string]any) }

// TestDashboardCheckFindsPlantedMistakes: the nightly dashboard passes the check; each planted
// mistake (the five, a regex variable compared with =, an annotation naming a column its
// query lacks, an annotation without a query or with a foreign datasource, a field nobody writes,
// an x/y chart's x field that no query returns) fails it, naming the mistake.
func TestDashboardCheckFindsPlantedMistakes(t *testing.T) {
	srv := influxtest.Start(t)
	fillNightly(t, srv.URL, srv.DB)
	if err := Check(context.Background(), srv.URL, srv.DB, plantedBoard(t, "crank-nightly.json", func(map[string]any) {})); err != nil {
		t.Fatalf("the committed nightly dashboard fails: %v", err)
	}
	target := func(d map[string]any) map[string]any { return firstPanel(d)["targets"].([]any)[0].(map[string]any) }
	for _, c := range []struct {
		name  string
		plant func(d map[string]any)
		want  string
	}{
		{"datasource type", func(d map[string]any) { firstPanel(d)["datasource"].(map[string]any)["type"] = "prometheus" },
			`panel "Requests/sec": datasource type "prometheus", want "influxdb"`},
		{"target datasource uid", func(d map[string]any) { target(d)["datasource"].(map[string]any)["uid"] = "influx-old" },
			`panel "Requests/sec": target A: datasource uid "influx-old" is not a provisioned InfluxDB datasource (crank-influxdb)`},
		{"panel type", func(d map[string]any) { firstPanel(d)["type"] = "time-series" },
			`panel "Requests/sec": panel type "time-series" is not a Grafana panel type`},
		{"unit", func(d map[string]any) {
			firstPanel(d)["fieldConfig"].(map[string]any)["defaults"].(map[string]any)["unit"] = "req/sec"
		},
			`panel "Requests/sec": unit "req/sec" is not in Grafana's unit list`},
		{"grid", func(d map[string]any) { firstPanel(d)["gridPos"].(map[string]any)["w"] = 30 },
			`panel "Requests/sec": gridPos x=0 w=30 h=8 y=0 leaves the 24-column grid`},
		{"result format", func(d map[string]any) { target(d)["resultFormat"] = "tabel" },
			`panel "Requests/sec": target A: resultFormat "tabel", want one of time_series, table, logs`},
		{"multi-value variable compared with =", func(d map[string]any) {
			target(d)["query"] = strings.Replace(target(d)["query"].(string), `"variant" =~ /^$variant$/`, `"variant" = '$variant'`, 1)
		}, `panel "Requests/sec": no data for`},
		{"annotation column", func(d map[string]any) {
			annotationTarget(d, 1)["textColumn"] = "txt"
		}, `annotation "Change points" (arch=$__all branch=$__all machine=$__all profile=$__all scenario=$__all variant=$__all): no column "txt"`},
		{"unwritten field", func(d map[string]any) {
			target(d)["query"] = strings.Replace(target(d)["query"].(string), "http/rps/mean", "http/rps", 1)
		}, `panel "Requests/sec": no data for SELECT "http/rps" FROM`},
		{"annotation without a query", func(d map[string]any) { delete(annotationTarget(d, 0), "query") },
			`annotation "Runs": no InfluxQL query`},
		{"annotation target datasource", func(d map[string]any) {
			annotationTarget(d, 0)["datasource"].(map[string]any)["uid"] = "influx-old"
		}, `annotation "Runs": target: datasource uid "influx-old" is not a provisioned InfluxDB datasource`},
	} {
		err := Check(context.Background(), srv.URL, srv.DB, plantedBoard(t, "crank-nightly.json", c.plant))
		if err == nil || !strings.Contains(err.Error(), "crank-nightly.json: "+c.want) {
			t.Errorf("%s: error %v\nwant it to contain %q", c.name, err, c.want)
		}
	}
}

// annotationTarget is the target (query and columns) of the dashboard's i-th annotation as JSON.
func annotationTarget(d map[string]any, i int) map[string]any {
	return d["annotations"].(map[string]any)["list"].([]any)[i].(map[string]any)["target"].(map[string]any)
}

// TestDashboardCheckFindsUnreturnedXField: the compare dashboard passes the check; with its x/y
// chart's x field (a byName matcher of the SDK's xychart options) renamed to one no query
// returns, it fails, naming the field.
func TestDashboardCheckFindsUnreturnedXField(t *testing.T) {
	srv := influxtest.Start(t)
	fillNightly(t, srv.URL, srv.DB)
	var x map[string]any
	overlay := func(d map[string]any) {
		for _, p := range d["panels"].([]any) {
			if p := p.(map[string]any); p["type"] == "xychart" {
				x = p["options"].(map[string]any)["series"].([]any)[0].(map[string]any)["x"].(map[string]any)["matcher"].(map[string]any)
			}
		}
	}
	if err := Check(context.Background(), srv.URL, srv.DB, plantedBoard(t, "crank-compare.json", overlay)); err != nil || x["options"] != "elapsed_s" {
		t.Fatalf("the committed compare dashboard fails (x field %v): %v", x, err)
	}
	err := Check(context.Background(), srv.URL, srv.DB, plantedBoard(t, "crank-compare.json", func(d map[string]any) {
		overlay(d)
		x["options"] = "elapsed"
	}))
	want := `crank-compare.json: panel "Requests/sec from run start, before and after": no column "elapsed" in the answers`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant it to contain %q", err, want)
	}
}

// TestDashboardVariablesAsGrafanaSubstitutes: a multi-value variable's values are escaped and
// joined as (a|b), All is its custom all value, a single-value variable goes in as is; the check
// runs the default, All, and two values.
func TestDashboardVariablesAsGrafanaSubstitutes(t *testing.T) {
	vars := []resolvedVar{
		{boardVar: boardVar{Name: "variant", Multi: true, IncludeAll: true, AllValue: ".*"}, values: []string{"a=1.5", "b/c"}},
		{boardVar: boardVar{Name: "session"}, values: []string{"s.1", "s.2"}},
	}
	for _, c := range []struct {
		s    setting
		want string
	}{
		{setting{"variant": {"a=1.5", "b/c"}, "session": {"s.1"}}, `(a=1\.5|b\/c) s.1`},
		{setting{"variant": {allValue}, "session": {"s.2"}}, `.* s.2`},
		{setting{"variant": {"a=1.5"}, "session": {"s.1"}}, `a=1\.5 s.1`},
	} {
		if got := substitute("$variant $session", substitutions(vars, c.s, map[string]string{})); got != c.want {
			t.Errorf("%s: %q, want %q", c.s, got, c.want)
		}
	}
	var got []string
	for _, s := range settings(vars) {
		got = append(got, s.String())
	}
	want := []string{"session=s.1 variant=a=1.5", "session=s.1 variant=$__all", "session=s.1 variant=a=1.5+b/c", "session=s.2 variant=a=1.5"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("settings %q, want %q", got, want)
	}
}
