package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// agentProc is a crank-agent process the test started and stops.
type agentProc struct {
	url  string
	dir  string // --dir: the job folders
	logs string // its combined output
	cmd  *exec.Cmd
	done chan struct{} // closed once it has exited
}

// runAgent starts bin/crank-agent (or prefix... bin/crank-agent, e.g. qemu) listening on url with
// its own --dir, and stops it with SIGTERM when the test ends. It does not wait for readiness.
func runAgent(t *testing.T, prefix []string, url string, extra ...string) *agentProc {
	t.Helper()
	return runAgentBinary(t, prefix, filepath.Join(testEnv.bins, "crank-agent"), url, extra...)
}

func runAgentBinary(t *testing.T, prefix []string, bin, url string, extra ...string) *agentProc {
	t.Helper()
	ap := &agentProc{url: url, dir: t.TempDir(), done: make(chan struct{})}
	ap.logs = filepath.Join(t.TempDir(), "agent.log")
	logs, err := os.Create(ap.logs)
	if err != nil {
		t.Fatal(err)
	}
	argv := append(slices.Clone(prefix), bin, "--url", url, "--dir", ap.dir)
	ap.cmd = exec.Command(argv[0], append(argv[1:], extra...)...)
	ap.cmd.Env = withoutEnv(os.Environ(), "CRANK_AGENT_TOKEN")
	ap.cmd.Stdout, ap.cmd.Stderr = logs, logs
	if err := ap.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = ap.cmd.Wait(); logs.Close(); close(ap.done) }()
	t.Cleanup(func() { ap.stop(t) })
	return ap
}

// waitLogged waits until the agent's log holds text (its address may be one the test's own
// namespace cannot reach).
func (ap *agentProc) waitLogged(t *testing.T, text string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !strings.Contains(ap.log(), text) {
		select {
		case <-ap.done:
			t.Fatalf("agent exited:\n%s", ap.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent log has no %q after %s:\n%s", text, d, ap.log())
		}
		time.Sleep(50 * time.Millisecond) // polling with a deadline
	}
}

// stop sends SIGTERM and waits for the exit (SIGKILL after 15 s, which fails the test).
func (ap *agentProc) stop(t *testing.T) {
	_ = ap.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-ap.done:
	case <-time.After(15 * time.Second):
		_ = ap.cmd.Process.Kill()
		<-ap.done
		t.Errorf("agent %s did not stop on SIGTERM\n%s", ap.url, ap.log())
	}
}

func (ap *agentProc) log() string {
	b, _ := os.ReadFile(ap.logs)
	return string(b)
}

// waitHealthy polls /health (no token needed) until it answers 200, within d.
func (ap *agentProc) waitHealthy(t *testing.T, client *http.Client, d time.Duration) {
	t.Helper()
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Second}
	}
	deadline := time.Now().Add(d)
	for {
		resp, err := client.Get(ap.url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-ap.done:
			t.Fatalf("agent %s exited: %v\n%s", ap.url, ap.cmd.ProcessState, ap.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent %s not healthy within %s: %v\n%s", ap.url, d, err, ap.log())
		}
		time.Sleep(50 * time.Millisecond) // polling with a deadline
	}
}

// client is an api.Client for the agent; with no token, the one a tokenless loopback agent made
// and keeps in its token file.
func (ap *agentProc) client(t *testing.T, token string, hc *http.Client) *api.Client {
	t.Helper()
	var addr string
	if token == "" {
		token, addr = api.LocalToken(context.Background(), ap.url)
	}
	c, err := api.NewClient(ap.url, token, hc, api.DialAddr(addr))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// jobFolders lists the job folders left in the agent's --dir (the build cache is not one).
func (ap *agentProc) jobFolders() []string {
	ents, _ := os.ReadDir(ap.dir)
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// processesIn lists the pids whose working directory is dir or below it: a job's processes.
func processesIn(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitClean polls until the agent has no job process and no job folder, within d, and returns
// how long that took.
func (ap *agentProc) waitClean(t *testing.T, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		procs, folders := processesIn(ap.dir), ap.jobFolders()
		if len(procs) == 0 && len(folders) == 0 {
			return time.Since(start)
		}
		if time.Since(start) > d {
			t.Fatalf("agent %s not clean after %s: job processes %v, job folders %v\n%s", ap.url, d, procs, folders, ap.log())
		}
		time.Sleep(100 * time.Millisecond) // polling with a deadline
	}
}

// waitJobState polls the job until it is in one of want, within d.
func waitJobState(t *testing.T, c *api.Client, id string, d time.Duration, want ...api.JobState) api.JobStatus {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		st, err := c.Status(context.Background(), id)
		if err != nil {
			t.Fatalf("status of %s: %v", id, err)
		}
		if slices.Contains(want, st.State) {
			return st
		}
		if time.Now().After(deadline) {
			out, _ := c.Output(context.Background(), id, 0)
			t.Fatalf("job %s is %s (%s), want %v; output:\n%s", id, st.State, st.Error, want, out)
		}
		time.Sleep(50 * time.Millisecond) // polling with a deadline
	}
}

// crankEnv runs bin/crank from the module root with extra environment variables (CRANK_AGENT_TOKEN
// is not inherited) and a deadline.
func crankEnv(t *testing.T, timeout time.Duration, env []string, args ...string) runResult {
	t.Helper()
	return crankCommand(t, timeout, env, append([]string{filepath.Join(testEnv.bins, "crank")}, args...)...)
}

// crankCommand runs argv (crank, or a command that runs crank) as crankEnv does.
func crankCommand(t *testing.T, timeout time.Duration, env []string, argv ...string) runResult {
	t.Helper()
	args := argv[1:]
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Dir = testEnv.root
	cmd.Env = append(withoutEnv(os.Environ(), "CRANK_AGENT_TOKEN"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("crank %v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("crank %v did not finish within %s\nstderr:\n%s", args, timeout, errb.String())
	}
	return runResult{code, out.String(), errb.String()}
}

// withoutEnv drops the named variables from env.
func withoutEnv(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, k)
	})
}

// shellJobs is a configuration with two quick jobs that need nothing but /bin/sh: a server that
// is ready at once and sleeps, and a load that prints a line and exits. It is written to dir with
// the profile text given (which may be empty) and its path returned.
func shellJobs(t *testing.T, dir, profiles string) string {
	t.Helper()
	return writeFile(t, dir, "shell.yml", `
jobs:
  sleeper:
    executable: /bin/sh
    arguments: '-c "echo ready; exec sleep 120"'
    readyStateText: ready
  quick:
    executable: /bin/sh
    arguments: '-c "sleep 0.3; echo done"'
    waitForExit: true
scenarios:
  shell:
    application:
      job: sleeper
    load:
      job: quick
`+profiles)
}
