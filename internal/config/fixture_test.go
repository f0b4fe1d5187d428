package config

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the want/error sections of testdata/fixtures/*.txt")

// archive is a txtar-like fixture: a comment, then "-- name --" sections.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name string
	data string
}

func parseArchive(s string) archive {
	var a archive
	cur := -1
	for _, line := range strings.SplitAfter(s, "\n") {
		t := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			a.files = append(a.files, archiveFile{name: strings.TrimSpace(t[3 : len(t)-3])})
			cur = len(a.files) - 1
			continue
		}
		if cur < 0 {
			a.comment += line
		} else {
			a.files[cur].data += line
		}
	}
	return a
}

func (a archive) format() string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n%s", f.name, f.data)
	}
	return b.String()
}

func (a archive) get(name string) (string, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

// fixtureArgs is the "-- args --" section: one option per line.
//
//	config main.yml other.yml      (default: main.yml)
//	scenario plaintext
//	profile local                  (repeatable)
//	variable name=value            (repeatable)
//	set load.variables.connections 64   (an override: flag name, then the value to the line's end)
//	strict                         (unknown keys are errors)
//	job NAME                       (crank's --job, instead of scenario; repeatable)
type fixtureArgs struct {
	configs []string
	req     Request
	strict  bool
}

func parseArgs(t *testing.T, s string) fixtureArgs {
	t.Helper()
	fa := fixtureArgs{req: Request{Variables: map[string]string{}}}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		switch key {
		case "config":
			fa.configs = append(fa.configs, strings.Fields(rest)...)
		case "scenario":
			fa.req.Scenario = rest
		case "strict":
			fa.strict = true
		case "job":
			fa.req.Jobs = append(fa.req.Jobs, rest)
		case "profile":
			fa.req.Profiles = append(fa.req.Profiles, rest)
		case "variable":
			name, value, _ := strings.Cut(rest, "=")
			fa.req.Variables[name] = value
		case "set":
			name, value, _ := strings.Cut(rest, " ")
			o, err := ParseOverride(name, value)
			if err != nil {
				t.Fatalf("args: %v", err)
			}
			fa.req.Overrides = append(fa.req.Overrides, o)
		default:
			t.Fatalf("args: unknown line %q", line)
		}
	}
	if len(fa.configs) == 0 {
		fa.configs = []string{"main.yml"}
	}
	return fa
}

// TestFixtures runs every testdata/fixtures/*.txt: it writes the archive's files into a temporary
// folder (files under http/ are served by a test server whose URL replaces $HTTP), loads and
// resolves as the args section says, and compares the DryRun JSON with "want" or the error text
// with "error". go test -run TestFixtures -update rewrites those sections.
func TestFixtures(t *testing.T) {
	abs, err := filepath.Abs("testdata/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join(abs, "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) { runFixture(t, path) })
	}
}

func runFixture(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := parseArchive(string(raw))
	dir := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(dir, "http"))))
	defer srv.Close()
	for _, f := range a.files {
		if f.name == "args" || f.name == "want" || f.name == "error" {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(f.data, "$HTTP", srv.URL)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argText, _ := a.get("args")
	fa := parseArgs(t, argText)
	t.Chdir(dir)

	got, section := resolveFixture(fa, srv.URL)
	want, ok := a.get(section)
	if *update {
		writeSection(t, path, a, section, got)
		return
	}
	if !ok {
		t.Fatalf("no %q section; got:\n%s", section, got)
	}
	if got != want {
		t.Errorf("%s differs (go test -run 'TestFixtures/%s' -update rewrites it)\ngot:\n%s\nwant:\n%s",
			section, filepath.Base(path), got, want)
	}
}

// resolveFixture returns the DryRun JSON followed by the warnings and notes ("want"), or the
// error text ("error").
func resolveFixture(fa fixtureArgs, url string) (string, string) {
	cfg, err := Load(context.Background(), fa.configs, LoadOptions{Strict: fa.strict})
	if err == nil {
		var r *Resolved
		if r, err = cfg.Resolve(fa.req); err == nil {
			out, err := r.DryRun()
			if err != nil {
				return err.Error() + "\n", "error"
			}
			text := string(out) + "\n"
			for _, w := range r.Warnings {
				text += "warning: " + w + "\n"
			}
			for _, n := range r.Notes {
				text += "note: " + n + "\n"
			}
			return strings.ReplaceAll(text, url, "$HTTP"), "want"
		}
	}
	return strings.ReplaceAll(err.Error(), url, "$HTTP") + "\n", "error"
}

func writeSection(t *testing.T, path string, a archive, section, got string) {
	t.Helper()
	var files []archiveFile
	for _, f := range a.files {
		if f.name != "want" && f.name != "error" {
			files = append(files, f)
		}
	}
	a.files = append(files, archiveFile{name: section, data: got})
	if err := os.WriteFile(path, []byte(a.format()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseArchiveRoundTrip(t *testing.T) {
	src := "comment\n-- a.yml --\nx: 1\n-- want --\n{}\n"
	a := parseArchive(src)
	if len(a.files) != 2 || a.files[0].name != "a.yml" || a.files[0].data != "x: 1\n" || a.comment != "comment\n" {
		t.Fatalf("parsed %+v", a)
	}
	if got := a.format(); !bytes.Equal([]byte(got), []byte(src)) {
		t.Fatalf("format = %q, want %q", got, src)
	}
}
