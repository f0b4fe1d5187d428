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
	for name, d := range Files() {
		if uids[d.UID] {
			t.Errorf("%s: uid %q used twice", name, d.UID)
		}
		uids[d.UID] = true
		var vars []string
		for _, v := range d.Templating.List {
			vars = append(vars, v.Name)
		}
		for _, want := range []string{"scenario", "profile"} {
			if !slices.Contains(vars, want) {
				t.Errorf("%s: no %s variable (has %v)", name, want, vars)
			}
		}
		ids := map[int]bool{}
		for _, p := range d.Panels {
			if p.Type == "row" {
				ids[p.ID] = true
				continue
			}
			if ids[p.ID] || len(p.Targets) == 0 || p.Datasource == nil || p.Datasource.UID != DatasourceUID {
				t.Errorf("%s: panel %d %q: duplicate id, no query or wrong datasource", name, p.ID, p.Title)
			}
			ids[p.ID] = true
		}
	}
	if v := RunTimeline().Templating.List; len(v) != 3 || v[2].Name != "session" || v[2].Multi {
		t.Error("the run timeline has no session variable")
	}
	prov, err := os.ReadFile(filepath.Join(dir, "provisioning", "datasources", "influxdb.yaml"))
	if err != nil || !strings.Contains(string(prov), "uid: "+DatasourceUID) {
		t.Errorf("the provisioned datasource does not have uid %s: %v", DatasourceUID, err)
	}
}
