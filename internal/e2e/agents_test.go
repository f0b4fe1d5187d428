package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startAgent runs bin/crank-agent on addr until the test ends and waits for /health.
func startAgent(t *testing.T, addr string, extra ...string) string {
	t.Helper()
	url := "http://" + addr
	cmd := exec.Command(filepath.Join(testEnv.bins, "crank-agent"), append([]string{"--url", url, "--dir", t.TempDir()}, extra...)...)
	logs, err := os.Create(filepath.Join(t.TempDir(), "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("agent %s did not stop on SIGTERM", url)
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return url
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logs.Name())
			t.Fatalf("agent on %s not healthy: %v\n%s", addr, err, b)
		}
		time.Sleep(50 * time.Millisecond) // polling with a deadline, not sync by sleep
	}
}

func twoAgentProfile(t *testing.T, app, load string) string {
	return writeFile(t, t.TempDir(), "two.yml", fmt.Sprintf(`
imports:
  - %s
profiles:
  two:
    agents:
      server:
        endpoints: [ "%s" ]
        aliases: [ application ]
      client:
        endpoints: [ "%s" ]
        aliases: [ load ]
`, filepath.Join(testEnv.root, "scenarios/plaintext.yml"), app, load))
}

// TestTwoAgentsByHand: application on 127.0.0.2, load on 127.0.0.3, each job on its own agent.
func TestTwoAgentsByHand(t *testing.T) {
	port := freePort(t)
	app := startAgent(t, "127.0.0.2:"+strconv.Itoa(port))
	load := startAgent(t, "127.0.0.3:"+strconv.Itoa(port))
	p := twoAgentProfile(t, app, load)
	out := filepath.Join(t.TempDir(), "out.json")
	_, ports := appPorts(t)
	r := crank(t, 3*time.Minute, append([]string{"--no-probe", "--config", p, "--scenario", "plaintext", "--profile", "two",
		"--variable", "duration=2", "--variable", "warmup=0", "--variable", "serverAddress=127.0.0.2", "--json", out}, ports...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := readResult(t, out)
	for svc, want := range map[string]string{"application": app, "load": load} {
		eps := fmt.Sprint(res.JobResults.Jobs[svc].Environment["endpoints"])
		if eps != "["+want+"]" {
			t.Errorf("%s ran on %s, want %s", svc, eps, want)
		}
	}
	if rps := res.JobResults.Jobs["load"].Results["http/rps/mean"]; rps <= 0 {
		t.Errorf("rps %v", rps)
	}
}

// processesWith lists the pids whose command line contains every part.
func processesWith(parts ...string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		all := true
		for _, p := range parts {
			all = all && strings.Contains(cmd, p)
		}
		if all {
			pids = append(pids, pid)
		}
	}
	return pids
}

// startCrankUntilLoad starts crank in the background and returns once the load job has started.
func startCrankUntilLoad(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	return startCrankUntil(t, func(l string) bool { return strings.Contains(l, "[load] starting") }, args...).cmd
}

// waitGone polls until no process matches, or fails after d.
func waitGone(t *testing.T, d time.Duration, parts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		left := processesWith(parts...)
		if len(left) == 0 {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("processes %v matching %q still running after %s", left, parts, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestKilledCrankLeavesNothingEmbedded: the embedded agent's children die with crank.
func TestKilledCrankLeavesNothingEmbedded(t *testing.T) {
	port, ports := appPorts(t)
	cmd := startCrankUntilLoad(t, append([]string{"--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration=60", "--variable", "warmup=0"}, ports...)...)
	if len(processesWith("--port", port)) == 0 {
		t.Fatal("the app is not running (cannot test cleanup)")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	waitGone(t, 5*time.Second, "127.0.0.1:"+port)
	waitGone(t, 5*time.Second, "--port", port)
}

// TestKilledCrankLeaseExpires: with a standalone agent, the lease stops and deletes the jobs.
func TestKilledCrankLeaseExpires(t *testing.T) {
	agentURL := startAgent(t, "127.0.0.1:"+strconv.Itoa(freePort(t)), "--lease", "3s")
	port, ports := appPorts(t)
	p := twoAgentProfile(t, agentURL, agentURL)
	cmd := startCrankUntilLoad(t, append([]string{"--config", p, "--scenario", "plaintext", "--profile", "two",
		"--variable", "duration=60", "--variable", "warmup=0"}, ports...)...)
	if len(processesWith("--port", port)) == 0 {
		t.Fatal("the app is not running (cannot test cleanup)")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	waitGone(t, 15*time.Second, "--port", port)
	waitGone(t, 5*time.Second, "127.0.0.1:"+port)
}
