package grafana

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the committed dashboards")

// dir is the committed dashboards folder, from this package's folder.
const dir = "../../../dashboards"

func TestCommittedDashboardsAreGenerated(t *testing.T) {
	for name, d := range Files() {
		want, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s is not what the generator makes (%v): run `go test ./internal/influx/grafana -update`", path, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, ok := Files()[e.Name()]; strings.HasSuffix(e.Name(), ".json") && !ok {
			t.Errorf("%s in %s is not generated", e.Name(), dir)
		}
	}
}

func TestDashboardsShape(t *testing.T) {
	uids := map[string]bool{}
	for name, b := range Files() {
		d, err := b.Build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Uid == nil || uids[*d.Uid] {
			t.Errorf("%s: no uid, or uid used twice", name)
		} else {
			uids[*d.Uid] = true
		}
		var vars []string
		for _, v := range d.Templating.List {
			vars = append(vars, v.Name)
		}
		for _, want := range []string{"scenario", "profile"} {
			if !slices.Contains(vars, want) {
				t.Errorf("%s: no %s variable (has %v)", name, want, vars)
			}
		}
		ids := map[uint32]bool{}
		for _, pr := range d.Panels {
			if r := pr.RowPanel; r != nil {
				ids[r.Id] = true
				continue
			}
			p := pr.Panel
			if p.Id == nil || ids[*p.Id] || len(p.Targets) == 0 || p.Datasource == nil || *p.Datasource.Uid != DatasourceUID {
				t.Errorf("%s: panel %v %v: no or duplicate id, no query or wrong datasource", name, p.Id, p.Title)
				continue
			}
			ids[*p.Id] = true
		}
	}
	run, err := RunTimeline().Build()
	if v := run.Templating.List; err != nil || len(v) != 3 || v[2].Name != "session" || *v[2].Multi {
		t.Errorf("the run timeline has no session variable (%v)", err)
	}
	prov, err := os.ReadFile(filepath.Join(dir, "provisioning", "datasources", "influxdb.yaml"))
	if err != nil || !strings.Contains(string(prov), "uid: "+DatasourceUID) {
		t.Errorf("the provisioned datasource does not have uid %s: %v", DatasourceUID, err)
	}
}

// TestUnescapeHTML: the escapes encoding/json writes for &, < and > become the characters again;
// an escaped backslash followed by "u0026" text stays as it is.
func TestUnescapeHTML(t *testing.T) {
	for in, want := range map[string]string{
		`"a\u0026b \u003cc\u003e"`: `"a&b <c>"`,
		`"\\u0026"`:                `"\\u0026"`,
		`"\\\u0026\n\u00e9"`:       `"\\&\n\u00e9"`,
		`"trailing \`:              `"trailing \`,
	} {
		if got := string(unescapeHTML([]byte(in))); got != want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestQueryValidates: a target that is not raw InfluxQL, or has an unknown result format, or an
// annotation without a text column, fails the dashboard's build, naming the query.
func TestQueryValidates(t *testing.T) {
	for _, c := range []struct {
		q    Query
		want string
	}{
		{target("A", "tabel", "SELECT 1", ""), `influxql[A]: resultFormat "tabel"`},
		{Query{RefID: "B", Query: "SELECT 1", ResultFormat: "table"}, "influxql[B]: not a raw InfluxQL query"},
		{Query{RefID: "Anno", Query: "SELECT 1", RawQuery: true, FromAnnotations: true}, "influxql[Anno]: annotation query without a text column"},
	} {
		_, err := Marshal(base("x", "x", "x", "now-1h").WithPanel(panel(lines(), 1, "p", "", half(), c.q)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.q, err, c.want)
		}
	}
}
