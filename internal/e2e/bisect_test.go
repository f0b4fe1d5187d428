package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// bisectApp is a small Go HTTP app; slow adds a 50 µs critical section behind a mutex to every
// request (a cap of 20,000 requests/s, whatever the cores).
func bisectApp(slow bool) string {
	section := ""
	if slow {
		section = `
		mu.Lock()
		for end := time.Now().Add(50 * time.Microsecond); time.Now().Before(end); {
		}
		mu.Unlock()`
	}
	return `package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

var mu sync.Mutex
var _ = time.Now

` + appMain(section)
}

// appMain is the main function of the e2e tests' small Go HTTP apps (their import block names
// flag, fmt, net and net/http): it listens on --port of 127.0.0.1, says it started, and answers
// every request "Hello, World!" after perRequest, Go statements, ran.
func appMain(perRequest string) string {
	return `func main() {
	port := flag.String("port", "5000", "")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:"+*port)
	if err != nil {
		panic(err)
	}
	fmt.Println("Application started.")
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {` + perRequest + `
		_, _ = w.Write([]byte("Hello, World!"))
	}))
}
`
}

// bisectRepo makes a repository of n commits of bisectApp, the one numbered culprit (1-based; 0: none)
// adding the critical section, and returns its folder and commits, oldest first.
func bisectRepo(t *testing.T, n, culprit int) (string, []string) {
	var commits []appCommit
	for i := 1; i <= n; i++ {
		subject := fmt.Sprintf("change %d", i)
		if i == culprit {
			subject = "guard every request with a mutex"
		}
		commits = append(commits, appCommit{main: bisectApp(culprit > 0 && i >= culprit), version: strconv.Itoa(i), subject: subject})
	}
	return appRepo(t, commits)
}

// appCommit is one commit of appRepo: its main.go, its VERSION file (none when empty) and subject.
type appCommit struct{ main, version, subject string }

// appRepo makes a git repository of a Go module "app" with one commit of each, oldest first, and
// returns its folder and commits.
func appRepo(t *testing.T, commits []appCommit) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	writeFile(t, dir, "go.mod", "module app\n\ngo 1.26\n")
	var shas []string
	for _, c := range commits {
		writeFile(t, dir, "main.go", c.main)
		if c.version != "" {
			writeFile(t, dir, "VERSION", c.version+"\n")
		}
		git("add", "-A")
		git("commit", "-q", "-m", c.subject)
		shas = append(shas, git("rev-parse", "HEAD"))
	}
	return dir, shas
}

// bisectConfig is a scenario "app" of the app in repo under the load job of scenarios/jobs (wrk,
// builtin).
func bisectConfig(t *testing.T, repo, load string) string {
	return writeFile(t, t.TempDir(), "app.yml", `
imports:
  - `+filepath.Join(testEnv.root, "scenarios/jobs/"+load+".yml")+`
jobs:
  app:
    source:
      localFolder: `+repo+`
    buildCommand: go build -o app .
    executable: ./app
    arguments: --port {{serverPort}}
    readyStateText: Application started.
    variables: {serverPort: 5000}
scenarios:
  app:
    application:
      job: app
    load:
      job: `+load+`
`)
}

// sideBySideArgs makes a repository of 3 commits of bisectApp, the 3rd adding the critical
// section, and returns its commits and crank bisect --side-by-side's arguments for it (no --metric):
// each round's apps on their own ports under the built-in generator at a fixed 2,000 req/s.
func sideBySideArgs(t *testing.T) ([]string, []string) {
	t.Helper()
	repo, shas := bisectRepo(t, 3, 3)
	cfg := bisectConfig(t, repo, "builtin")
	return shas, []string{"bisect", "--config", cfg, "--scenario", "app", "--good", shas[0], "--bad", shas[2], "--side-by-side",
		"--variable", "serverPort=" + strconv.Itoa(testutil.FreeRun(t, 3)), "--variable", "duration=1", "--variable", "warmup=0",
		"--variable", "connections=8", "--load.variables.rate", "2000", "--interval", "0.25", "--application.cpuSet", "0", "--load.cpuSet", "1",
		"--precision", "5%", "--max-iterations", "12"}
}

// TestBisectSideBySideRefusesRequestsPerSecond: judging requests/s with --side-by-side is refused
// (exit 2, saying why) before anything runs: the commits of a round share the machine, so their
// requests/s are not each one's own. (The search itself measures: TestBisectSideBySideFindsTheMutex,
// make measure.)
func TestBisectSideBySideRefusesRequestsPerSecond(t *testing.T) {
	_, args := sideBySideArgs(t)
	// --verbose: bisect shows the runs' step lines ("starting job") only then.
	refused := crank(t, time.Minute, append(args, "--metric", "load:http/rps/mean", "--verbose")...)
	if refused.code != 2 || !strings.Contains(refused.stderr, "--side-by-side: the commits share the machine") {
		t.Fatalf("requests/s side by side: exit %d, want 2 and why\n%s", refused.code, refused.stderr)
	}
	if strings.Contains(refused.stderr, "starting job") {
		t.Errorf("a job started before the refusal:\n%s", refused.stderr)
	}
}
