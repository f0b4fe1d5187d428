package config

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiquidIncludeRefused: osteele/liquid's {% include %} reads any file crank's user can read
// (its path joined to crank's working folder, so '../../../etc/passwd' is absolute) and renders
// it into the value. A configuration fetched from a URL put crank's agent token file into a job's
// arguments, sent to the endpoint it named, and one that included /dev/zero grew crank's memory
// without bound. crank's configurations never include files: the tag is refused, naming it.
func TestLiquidIncludeRefused(t *testing.T) {
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "token")
	if err := os.WriteFile(secret, []byte("the-agent-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	up := strings.Repeat("../", 64)
	job := func(arg string) string {
		return "jobs:\n  r:\n    executable: /bin/true\n    arguments: \"" + arg + "\"\n" +
			"scenarios:\n  s:\n    app:\n      job: r\n"
	}
	remote := map[string]string{
		"/token.yml": job("{% include '" + up + strings.TrimPrefix(secret, "/") + "' %}"),
		"/zero.yml":  job("{% include '" + up + "dev/zero' %}"),
		"/var.yml": "variables:\n  f: '" + up + strings.TrimPrefix(secret, "/") + "'\n" +
			job("{% include f %}"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := remote[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()

	for name, body := range remote {
		t.Run(strings.TrimPrefix(name, "/"), func(t *testing.T) {
			local := filepath.Join(t.TempDir(), "local.yml")
			if err := os.WriteFile(local, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, paths := range [][]string{{srv.URL + name}, {local}} { // fetched, and a local file alike
				cfg, err := Load(context.Background(), paths, LoadOptions{})
				var r *Resolved
				if err == nil {
					r, err = cfg.Resolve(Request{Scenario: "s"})
				}
				if err == nil || !strings.Contains(err.Error(), "{% include %} is not available") {
					t.Fatalf("%v: resolved %+v, error %v; want the include refused", paths, r, err)
				}
				if !strings.Contains(err.Error(), "arguments") {
					t.Errorf("the error does not name the key: %v", err)
				}
				if strings.Contains(err.Error(), "the-agent-token") {
					t.Errorf("the error shows the file's content: %v", err)
				}
			}
		})
	}
}

// TestLiquidLoopsBounded: a 40-byte loop over a range, `{% for i in (1..100000000) %}{% endfor %}`,
// ran two minutes, and a larger range or nested loops ran for ever, from a fetched configuration
// as from any. The loops of one resolution take at most MaxLoopSteps steps (an iteration each, a
// KiB a string filter makes each); honest loops, their modifiers and else keep working.
func TestLiquidLoopsBounded(t *testing.T) {
	for _, src := range []string{
		"{% for i in (1..1000000000) %}{% endfor %}",
		"{% for a in (1..100000) %}{% for b in (1..100000) %}{% endfor %}{% endfor %}",
		"{% assign s = big %}{% for i in (1..100000) %}{% assign s = s | replace: 'a', 'a' %}{% endfor %}",
	} {
		out, err := render(newEngine(), src, map[string]any{"big": strings.Repeat("a", 1<<19)})
		if !errors.Is(err, errLoopSteps) && (err == nil || !strings.Contains(err.Error(), errLoopSteps.Error())) {
			t.Errorf("%s: rendered %.40q, error %v; want %v", src, out, err, errLoopSteps)
		}
	}
	honest := map[string]string{
		"{% for a in (1..3) reversed %}{{a}}{% endfor %}":                          "321",
		"{% for a in (1..10) limit: 2 offset: 3 %}{{a}}{% endfor %}":               "45",
		"{% for a in (1..3) limit:2 %}{{a}}{% else %}E{% endfor %}":                "12",
		"{%- for x in list -%}{{x}},{%- endfor -%}":                                "p,q,r,",
		"{% for x in m %}{{x[0]}}={{x[1]}}{% endfor %}":                            "k=v",
		"{% for x in none %}{{x}}{% else %}E{% endfor %}":                          "",
		"{% for x in csv | split: ',' reversed %}{{x}}{% endfor %}":                "cba",
		"{% tablerow x in list cols: 2 %}{{x}}{% endtablerow %}":                   `<tr class="row1"><td class="col1">p</td><td class="col2">q</td></tr><tr class="row2"><td class="col1">r</td></tr>`,
		"{% for a in (1..1000) %}{% for b in (1..900) %}{% endfor %}{% endfor %}x": "x",
	}
	for src, want := range honest {
		out, err := render(newEngine(), src, map[string]any{"list": []any{"p", "q", "r"}, "m": map[string]any{"k": "v"}, "csv": "a,b,c"})
		if err != nil || out != want {
			t.Errorf("%s: rendered %q, error %v; want %q", src, out, err, want)
		}
	}

	// Through Load and Resolve, from a fetched file: the error names the file and the key.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("jobs:\n  r:\n    executable: /bin/true\n    arguments: \"{% for i in (1..1000000000) %}{% endfor %}\"\n" +
			"scenarios:\n  s:\n    app:\n      job: r\n"))
	}))
	defer srv.Close()
	cfg, err := Load(context.Background(), []string{srv.URL + "/loop.yml"}, LoadOptions{})
	if err == nil {
		_, err = cfg.Resolve(Request{Scenario: "s"})
	}
	if err == nil || !strings.Contains(err.Error(), "loop.yml") || !strings.Contains(err.Error(), `key "arguments"`) ||
		!strings.Contains(err.Error(), "templates take more than") {
		t.Fatalf("resolved the loop; error %v, want the loop refused naming the file and key", err)
	}
}

// TestLiquidFiltersBounded: filters that make a longer string than they are given were sized
// only after they had made it, or not at all: from a string of 1 MiB doubled in a loop,
// `s | split: ” | join: s` and `s | replace: ”, s` would each be a TiB, and `escape` chained
// multiplies by 5 a time. Each is refused before it grows past MaxRender; honest uses render.
func TestLiquidFiltersBounded(t *testing.T) {
	mib := "{% assign s = 'aaaaaaaa' %}{% for i in (1..17) %}{% assign s = s | append: s %}{% endfor %}"
	kib := "{% assign s = '&&&&&&&&' %}{% for i in (1..14) %}{% assign s = s | append: s %}{% endfor %}"
	for _, src := range []string{
		mib + "{{ s | split: '' | join: s | size }}",
		mib + "{{ s | replace: '', s | size }}",
		kib + "{{ s | escape | escape | escape | size }}",
		kib + "{{ s | url_encode | url_encode | url_encode | url_encode | size }}",
		mib + "{% assign l = s | split: '' %}{{ l | json | size }}",
		mib + "{% assign l = s | split: '' %}{{ l | inspect | size }}",
	} {
		out, err := render(newEngine(), src, map[string]any{})
		if err == nil || !strings.Contains(err.Error(), errTooLarge.Error()) {
			t.Errorf("%s: rendered %.40q, error %v; want %v", strings.TrimPrefix(strings.TrimPrefix(src, mib), kib), out, err, errTooLarge)
		}
	}
	honest := map[string]string{
		"{{ 'a,b' | split: ',' | join: '-' }}":    "a-b",
		"{{ 'a,b' | split: ',' | join }}":         "a b",
		"{{ 'a<b' | escape }}":                    "a&lt;b",
		"{{ '&lt;' | escape_once }}":              "&lt;",
		"{{ 'x.x' | replace: 'x', 'yz' }}":        "yz.yz",
		"{{ l | json }}":                          `["p",1]`,
		"{{ l | inspect }}":                       `["p",1]`,
		"{{ 'a b&' | url_encode }}":               "a+b%26",
		"{{ s | newline_to_br }}":                 "a<br />b",
		"{{ kib | split: '' | join: '' | size }}": "1024",
		"{% assign x = l | json %}{{ x | size }}": "7",
	}
	for src, want := range honest {
		out, err := render(newEngine(), src, map[string]any{"l": []any{"p", 1}, "s": "a\nb", "kib": strings.Repeat("k", 1024)})
		if err != nil || out != want {
			t.Errorf("%s: rendered %q, error %v; want %q", src, out, err, want)
		}
	}
}

// TestFetchedImportsStayURLs: an import of a fetched file that does not resolve to a URL
// ("c:/x.yml" parses as scheme c, "//a b/x.yml" does not parse, and both were returned as they
// were) was read from crank's machine, relative to its working folder, as a local file: trusted
// to name local folders and to get crank's unscoped token. It is refused, naming the import.
func TestFetchedImportsStayURLs(t *testing.T) {
	cwd := t.TempDir()
	t.Chdir(cwd)
	planted := "jobs:\n  r:\n    executable: /bin/true\n    source:\n      localFolder: /\n" +
		"scenarios:\n  s:\n    app:\n      job: r\n"
	for _, dir := range []string{"c:", "file:x"} {
		if err := os.MkdirAll(filepath.Join(cwd, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cwd, dir, "x.yml"), []byte(planted), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range []string{"c:/x.yml", "file:x/x.yml"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("imports:\n  - '" + ref + "'\n"))
		}))
		cfg, err := Load(context.Background(), []string{srv.URL + "/fetched.yml"}, LoadOptions{})
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), `import "`+ref+`": a configuration loaded from a URL imports only http(s) URLs`) {
			var r *Resolved
			if err == nil {
				r, err = cfg.Resolve(Request{Scenario: "s"})
			}
			t.Errorf("import %q: resolved %+v, error %v; want the import refused", ref, r, err)
		}
	}
}

// TestVariablesThatGrowAreBounded: variables of variables are rendered pass after pass, and a
// chain of 80 that each double the next (v0: '{{ v1 }}{{ v1 }}', ...) re-parsed megabytes of
// markup a pass: 43 s, and a longer chain longer still, without a loop or a bound crossed. Parsing
// takes a step each 8 bytes of the resolution's MaxLoopSteps, so it ends, naming the variable.
func TestVariablesThatGrowAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("variables:\n")
	const n = 200
	for i := range n {
		fmt.Fprintf(&b, "  v%d: '{{ v%d }}{{ v%d }}'\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "  v%d: x\njobs:\n  r:\n    executable: /bin/true\n    arguments: '{{ v0 | size }}'\n"+
		"scenarios:\n  s:\n    app:\n      job: r\n", n)
	file := filepath.Join(t.TempDir(), "grow.yml")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(context.Background(), []string{file}, LoadOptions{})
	if err == nil {
		_, err = cfg.Resolve(Request{Scenario: "s"})
	}
	if err == nil || !strings.Contains(err.Error(), "grow.yml") || !strings.Contains(err.Error(), errLoopSteps.Error()) {
		t.Fatalf("error %.300v; want the growth refused naming the file and the bound", err)
	}
}
