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

// TestRemoteConfigCannotReachThisMachine: a configuration loaded from a URL (given to --config or
// imported by a local file) describes jobs; it may not read or write files of the machine crank
// runs on, nor make crank fetch the cloud's instance metadata. The third audit's remote import
// read crank's agent token file into a job's environment and wrote a file with fs.writeFile in
// onConfigure, and named a local folder and a local build file, all sent to the endpoint it named
// (issue 25, third audit, 2).
func TestRemoteConfigCannotReachThisMachine(t *testing.T) {
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "token")
	if err := os.WriteFile(secret, []byte("the-agent-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(secretDir, "written")
	job := func(body string) string {
		return "jobs:\n  r:\n    executable: /bin/true\n" + body + "scenarios:\n  s:\n    app:\n      job: r\n"
	}
	remote := map[string]string{
		"/folder.yml":   job("    source:\n      localFolder: " + secretDir + "\n"),
		"/relative.yml": job("    source:\n      localFolder: .\n"),
		"/named.yml":    job("    sources:\n      x:\n        localFolder: " + secretDir + "\n        destinationFolder: x\n"),
		"/files.yml":    job("    buildFiles:\n      - " + secret + ";stolen\n"),
		"/read.yml":     job("    onConfigure:\n      - 'job.environmentVariables = {LEAK: fs.readFile(\"" + secret + "\")}'\n"),
		"/write.yml":    job("    onConfigure:\n      - 'fs.writeFile(\"" + written + "\", \"x\")'\n"),
		"/setpath.yml":  job("    onConfigure:\n      - 'job.source = {localFolder: \"" + secretDir + "\"}'\n"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metadata.yml" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/iam/security-credentials/", http.StatusFound)
			return
		}
		body, ok := remote[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()

	cases := []struct{ file, want string }{
		{"folder.yml", "named by a configuration loaded from a URL"},
		{"relative.yml", "named by a configuration loaded from a URL"},
		{"named.yml", "named by a configuration loaded from a URL"},
		{"files.yml", "named by a configuration loaded from a URL"},
		{"read.yml", "fs.readFile: not available"},
		{"write.yml", "fs.writeFile: not available"},
		{"setpath.yml", "may not name files of this machine"},
		{"metadata.yml", "netguard: not connecting to 169.254.169.254"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			local := filepath.Join(t.TempDir(), "local.yml")
			if err := os.WriteFile(local, []byte("imports:\n  - "+srv.URL+"/"+c.file+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, paths := range [][]string{{local}, {srv.URL + "/" + c.file}} { // imported, and --config URL
				cfg, err := Load(context.Background(), paths, LoadOptions{})
				var r *Resolved
				if err == nil {
					r, err = cfg.Resolve(Request{Scenario: "s"})
				}
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%v: resolved %+v, error %v; want an error saying %q", paths, r, err, c.want)
				}
				if strings.Contains(err.Error(), "the-agent-token") {
					t.Errorf("the error shows the file's content: %v", err)
				}
			}
		})
	}
	if _, err := os.Stat(written); !os.IsNotExist(err) {
		t.Errorf("a remote onConfigure wrote %s (stat: %v)", written, err)
	}

	// The same jobs in a local file are what they were: a local file names local files.
	local := filepath.Join(t.TempDir(), "local.yml")
	if err := os.WriteFile(local, []byte(remote["/read.yml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(context.Background(), []string{local}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.Resolve(Request{Scenario: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Services[0].Job.Environment["LEAK"]; got != "the-agent-token" {
		t.Errorf("a local onConfigure read %q, want the file's content", got)
	}
}
