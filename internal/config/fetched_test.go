package config

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFetchedOnlyEndpoints: the endpoints that only a configuration fetched from a URL names are
// told apart (MEDIUM 11: crank sends them no unscoped token), and an endpoint a local file or the
// command line also names is not one of them.
func TestFetchedOnlyEndpoints(t *testing.T) {
	lab := `
jobs:
  r: { executable: /bin/true }
scenarios:
  s:
    application: { job: r }
    load: { job: r }
profiles:
  lab:
    agents:
      application: { endpoints: [ "http://lab-app:5010" ] }
      load: { endpoints: [ "http://lab-load:5010/" ] }
`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(lab)) }))
	defer srv.Close()
	local := filepath.Join(t.TempDir(), "local.yml")
	if err := os.WriteFile(local, []byte("imports:\n  - "+srv.URL+"/lab.yml\nprofiles:\n  mine:\n    agents:\n      load: { endpoints: [ \"http://lab-load:5010\" ] }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fetched := srv.URL + "/lab.yml"
	for _, c := range []struct {
		name     string
		config   string
		profiles []string
		over     []Override
		want     map[string]string
	}{
		{"fetched", fetched, []string{"lab"}, nil, map[string]string{"http://lab-app:5010": fetched, "http://lab-load:5010": fetched}},
		{"imported", local, []string{"lab"}, nil, map[string]string{"http://lab-app:5010": fetched, "http://lab-load:5010": fetched}},
		{"local profile", local, []string{"lab", "mine"}, nil, map[string]string{"http://lab-app:5010": fetched}},
		{"command line", fetched, []string{"lab"}, []Override{{Service: "application", Path: "endpoints", Value: "http://lab-app:5010"}},
			map[string]string{"http://lab-load:5010": fetched}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(context.Background(), []string{c.config}, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := cfg.Resolve(Request{Scenario: "s", Profiles: c.profiles, Overrides: c.over})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.FetchedOnly(); !maps.Equal(got, c.want) {
				t.Errorf("FetchedOnly() = %v, want %v", got, c.want)
			}
		})
	}
}

// TestFetchedImportsOnlyURLs: a fetched file's import that does not resolve to a URL against the
// file's own (a ref with a scheme, "lab:mine.yml", or one url.Parse refuses, "x%zz.yml") was
// opened as a file of this machine, in crank's working folder, and read as a local file: its
// endpoints got the unscoped token, its localFolder was uploaded. It is an error naming the
// import.
func TestFetchedImportsOnlyURLs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	local := "profiles:\n  mine:\n    agents:\n      application: { endpoints: [ \"http://evil:5010\" ] }\n"
	for _, name := range []string{"lab:mine.yml", "x%zz.yml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(local), 0o600); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("imports: [ \"" + name + "\" ]\njobs:\n  r: { executable: /bin/true }\nscenarios:\n  s:\n    application: { job: r }\n"))
		}))
		_, err := Load(context.Background(), []string{srv.URL + "/lab.yml"}, LoadOptions{})
		srv.Close()
		want := fmt.Sprintf("import %q: a configuration loaded from a URL imports only http(s) URLs, not %q on this machine", name, name)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), srv.URL+"/lab.yml") {
			t.Errorf("import %s: %v, want an error naming the file and %q", name, err, want)
		}
	}
}
