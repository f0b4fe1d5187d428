package config

import (
	"context"
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
