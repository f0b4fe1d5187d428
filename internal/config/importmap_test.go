package config

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// offline is an HTTP client that fetches nothing: each request is recorded and fails as a
// machine without a network would.
type offline struct{ asked []string }

func (o *offline) RoundTrip(r *http.Request) (*http.Response, error) {
	o.asked = append(o.asked, r.URL.String())
	return nil, errors.New("dial tcp: lookup " + r.URL.Host + ": no such host")
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mapping(t *testing.T, s string) ImportMapping {
	t.Helper()
	m, err := ParseImportMapping(s, ImportMapFlag)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestImportMapReadsCheckouts: URLs under a mapped prefix are read from the local folder (a
// relative import of a mapped file too, resolved against its URL), and nothing is fetched.
func TestImportMapReadsCheckouts(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"crank/src/Jobs.Wrk/wrk.yml":          "imports:\n  - ../common/base.yml\njobs:\n  wrk:\n    executable: wrk\n",
		"crank/src/common/base.yml":           "jobs:\n  base:\n    executable: base\n",
		"bench/scenarios/aspnet.profiles.yml": "profiles:\n  p:\n    variables:\n      a: 1\n",
		"bench/scenarios/plaintext.yml":       "imports:\n  - https://raw.githubusercontent.com/dotnet/crank/main/src/Jobs.Wrk/wrk.yml\n  - https://RAW.githubusercontent.com/aspnet/Benchmarks/main/scenarios/aspnet.profiles.yml\n",
	})
	net := &offline{}
	opts := LoadOptions{HTTPClient: &http.Client{Transport: net}, ImportMap: []ImportMapping{
		mapping(t, "https://raw.githubusercontent.com/dotnet/crank/main="+filepath.Join(root, "crank")),
		mapping(t, "https://raw.githubusercontent.com/aspnet/Benchmarks/main/="+filepath.Join(root, "bench")),
	}}
	cfg, err := Load(context.Background(), []string{"https://raw.githubusercontent.com/aspnet/Benchmarks/main/scenarios/plaintext.yml"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Jobs(); !slices.Equal(got, []string{"base", "wrk"}) {
		t.Errorf("jobs %v, want base and wrk", got)
	}
	if len(net.asked) > 0 {
		t.Errorf("fetched %v: every URL is mapped", net.asked)
	}
}

// TestImportMapErrors: an import that cannot be fetched is named with the file importing it and
// the mapping that would read it; only whole prefixes map; a mapped path may not leave its
// folder, by .. or by a link; a mapped file missing from the checkout says where it was looked for.
func TestImportMapErrors(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.yml": "jobs:\n  secret:\n    executable: x\n"})
	writeFiles(t, root, map[string]string{"crank/ok.yml": "jobs:\n  ok:\n    executable: x\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.yml"), filepath.Join(root, "crank", "link.yml")); err != nil {
		t.Fatal(err)
	}
	maps := []ImportMapping{mapping(t, "https://raw.githubusercontent.com/dotnet/crank/main/="+filepath.Join(root, "crank"))}
	cases := []struct {
		name, ref string
		want      []string
	}{
		{"unmapped", "https://raw.githubusercontent.com/aspnet/Benchmarks/main/scenarios/aspnet.profiles.yml", []string{
			"main.yml:2: import \"https://raw.githubusercontent.com/aspnet/Benchmarks/main/scenarios/aspnet.profiles.yml\"",
			"no such host", "--import-map https://raw.githubusercontent.com/aspnet/Benchmarks/main/=/path/to/Benchmarks (or CRANK_IMPORT_MAP)",
			"no prefix mapped matches it (https://raw.githubusercontent.com/dotnet/crank/main/)"}},
		{"not a whole prefix", "https://raw.githubusercontent.com/dotnet/crank/mainline/ok.yml", []string{"no such host", "no prefix mapped matches it"}},
		{"dot dot", "https://raw.githubusercontent.com/dotnet/crank/main/../../x/secret.yml", []string{`the path "../../x/secret.yml" leaves the folder`}},
		{"escaped dot dot", "https://raw.githubusercontent.com/dotnet/crank/main/%2e%2e/secret.yml", []string{`the path "../secret.yml" leaves the folder`}},
		{"link out", "https://raw.githubusercontent.com/dotnet/crank/main/link.yml", []string{"mapped by --import-map", "link.yml: path escapes from parent"}},
		{"missing", "https://raw.githubusercontent.com/dotnet/crank/main/src/wrk.yml", []string{
			filepath.Join(root, "crank", "src", "wrk.yml") + ": no such file or directory", "is the checkout at the commit the URL names?"}},
		{"query", "https://raw.githubusercontent.com/dotnet/crank/main/ok.yml?token=1", []string{"a URL with a query or fragment names no file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"main.yml": "imports:\n  - " + c.ref + "\n"})
			net := &offline{}
			_, err := Load(context.Background(), []string{filepath.Join(dir, "main.yml")},
				LoadOptions{HTTPClient: &http.Client{Transport: net}, ImportMap: maps})
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "secret") && strings.Contains(err.Error(), "executable") {
				t.Errorf("the file outside was read: %v", err)
			}
		})
	}
}

// TestImportMapKeepsWhatAFetchedFileMayDo: a file read through a mapping is its URL's file: it
// may not name a local folder, as it may not when fetched.
func TestImportMapKeepsWhatAFetchedFileMayDo(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"r/job.yml": "jobs:\n  j:\n    executable: x\n    source:\n      localFolder: /etc\n" +
		"scenarios:\n  s:\n    app:\n      job: j\n"})
	cfg, err := Load(context.Background(), []string{"https://example.com/r/job.yml"},
		LoadOptions{HTTPClient: &http.Client{Transport: &offline{}}, ImportMap: []ImportMapping{mapping(t, "https://example.com/r/="+filepath.Join(root, "r"))}})
	if err == nil {
		_, err = cfg.Resolve(Request{Scenario: "s"})
	}
	if err == nil || !strings.Contains(err.Error(), "named by a configuration loaded from a URL") {
		t.Errorf("err = %v, want the local folder refused", err)
	}
}

func TestParseImportMapping(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	writeFiles(t, dir, map[string]string{"f": ""})
	m, err := ParseImportMapping("HTTPS://Raw.GitHubUserContent.com/dotnet/crank/main="+dir, ImportMapFlag)
	if err != nil || m.Prefix != "https://raw.githubusercontent.com/dotnet/crank/main/" || m.Dir != dir {
		t.Errorf("got %+v, %v", m, err)
	}
	for in, want := range map[string]string{
		"https://a/b/":                  "want URL-PREFIX=FOLDER",
		"=" + dir:                       "want URL-PREFIX=FOLDER",
		"file:///a/=" + dir:             "is not an http(s) URL",
		"https://a/b/?x=" + dir:         "may hold no query",
		"https://a/b/=" + dir + "/none": "no such file or directory",
		"https://a/b/=" + file:          "is not a folder",
	} {
		if _, err := ParseImportMapping(in, ImportMapFlag); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
	ms, err := ParseImportMapEnv(" https://a/x/=" + dir + "\n https://b/y=" + dir + " bad")
	if len(ms) != 2 || err == nil || !strings.Contains(err.Error(), `CRANK_IMPORT_MAP "bad"`) {
		t.Errorf("env: %+v, %v", ms, err)
	}
}
