package controller

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// bareRepo makes a bare git repository whose commits hold app.sh printing each number.
func bareRepo(t *testing.T, numbers ...string) (string, []string) {
	t.Helper()
	var scripts []string
	for _, n := range numbers {
		scripts = append(scripts, "#!/bin/sh\necho "+n+"\n")
	}
	dir, commits := testutil.GitRepo(t, scripts...)
	bare := filepath.Join(t.TempDir(), "repo.git")
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", dir, bare).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	return bare, commits
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNamedSources runs a job with its own source, two local named sources and a named git
// repository (a bare repository made here): the build reads a file from each destination folder,
// the load reports what the build wrote, and changing one named source rebuilds (a build cached
// under a key that missed a source would report the old value).
func TestNamedSources(t *testing.T) {
	repo, commits := bareRepo(t, "300", "301")
	own, first, second := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(own, "report.sh"), "echo sources/own=$(cat own.txt)\necho sources/sum=$(cat built)\n")
	writeFile(t, filepath.Join(own, "own.txt"), "4000")
	writeFile(t, filepath.Join(first, "n"), "1")
	writeFile(t, filepath.Join(second, "sub", "n"), "20")
	url := startAgent(t, 0, nil)
	job := api.Job{Name: "sources", Executable: "/bin/sh", Arguments: "report.sh", WaitForExit: true, Parser: "lines",
		BuildCommand: `echo $(( $(cat first/n) + $(cat deep/second/sub/n) + $(sh repo/app.sh) )) > built`,
		Source:       &api.Source{LocalFolder: own},
		Sources: []api.NamedSource{
			{Name: "first", LocalFolder: first},
			{Name: "repo", Repository: "file://" + repo, BranchOrCommit: commits[0]},
			{Name: "second", LocalFolder: second, DestinationFolder: "deep/second"},
		}}
	run := func() map[string]float64 { return runLoad(t, job, url) }
	if got := run(); got["sources/own"] != 4000 || got["sources/sum"] != 321 {
		t.Fatalf("results %v, want sources/own 4000 and sources/sum 1+20+300", got)
	}
	writeFile(t, filepath.Join(second, "sub", "n"), "50")
	if got := run(); got["sources/sum"] != 351 {
		t.Errorf("after changing sources.second: sources/sum = %v, want 1+50+300 (rebuilt)", got["sources/sum"])
	}
	job.Sources[1].BranchOrCommit = commits[1]
	if got := run(); got["sources/sum"] != 352 {
		t.Errorf("after moving sources.repo to its second commit: sources/sum = %v, want 1+50+301", got["sources/sum"])
	}
}

// TestBuildFiles: crank's buildFiles are put over the job's sources before the build: a local
// file into a folder, a "**" glob keeping each file's folder, a URL's body, and a file replacing
// one of the cloned repository's; the build reads them all, and a changed file rebuilds.
func TestBuildFiles(t *testing.T) {
	repo, _ := bareRepo(t, "300")
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "one", "n"), "1")
	writeFile(t, filepath.Join(local, "tree", "a.n"), "20")
	writeFile(t, filepath.Join(local, "tree", "sub", "b.n"), "400")
	writeFile(t, filepath.Join(local, "tree", "sub", "skip.txt"), "not matched")
	writeFile(t, filepath.Join(local, "override", "app.sh"), "echo 5000\n")
	served := "60000"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/files/url.n" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(served))
	}))
	defer srv.Close()
	url := startAgent(t, 0, nil)
	job := api.Job{Name: "files", Executable: "/bin/sh", Arguments: `-c "echo sources/sum=$(cat built)"`,
		WaitForExit: true, Parser: "lines",
		BuildCommand: `echo $(( $(cat conf/n) + $(cat deep/a.n) + $(cat deep/sub/b.n) + $(sh app.sh) + $(cat url.n) )) > built`,
		Source:       &api.Source{Repository: "file://" + repo},
		BuildFiles: []string{filepath.Join(local, "one", "n") + ";conf", filepath.Join(local, "tree", "**", "*.n") + ";deep",
			filepath.Join(local, "override", "app.sh"), srv.URL + "/files/url.n"}}
	run := func() float64 { return runLoad(t, job, url)["sources/sum"] }
	if got := run(); got != 65421 {
		t.Fatalf("sources/sum = %v, want 1+20+400+5000 (app.sh replaced)+60000", got)
	}
	served = "70000"
	if got := run(); got != 75421 {
		t.Errorf("after the URL's file changed: sources/sum = %v, want 75421 (rebuilt)", got)
	}
	job.BuildFiles = append(job.BuildFiles, filepath.Join(local, "none", "*.n"))
	c := New(Options{PollInterval: 50 * time.Millisecond})
	defer c.Close(context.Background())
	_, err := c.RunOnce(context.Background(), []Service{{Name: "load", Job: job, Endpoints: []string{url}}})
	if err == nil || !strings.Contains(err.Error(), "buildFiles") || !strings.Contains(err.Error(), "none") {
		t.Errorf("a pattern matching nothing: %v, want an error naming it", err)
	}
}

// runLoad runs job once as the service "load" on the agent at url and returns its results.
func runLoad(t *testing.T, job api.Job, url string) map[string]float64 {
	t.Helper()
	var progress testutil.SyncBuffer
	c := New(Options{Progress: &progress, PollInterval: 50 * time.Millisecond})
	defer c.Close(context.Background())
	res, err := c.RunOnce(context.Background(), []Service{{Name: "load", Job: job, Endpoints: []string{url}}})
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	return res["load"].Results
}
