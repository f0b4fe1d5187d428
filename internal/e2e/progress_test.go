package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// liveConfig is scenarios/plaintext.yml with the app's request counter read per second, so the
// live line has a server-side requests/s (the default counters may already read it).
func liveConfig(t *testing.T) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "live.yml", `imports:
  - `+filepath.Join(testEnv.root, "scenarios/plaintext.yml")+`
scenarios:
  plaintext:
    application:
      job: plaintext
      counters:
        - {metric: app_requests_total, measurement: runtime-counter/requests-per-second, read: rate}
`)
}

// shellQuote quotes args for sh -c.
func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

var liveRPS = regexp.MustCompile(`\[load\] measuring \d+s[^|\r\n]*\| ([0-9,]+) req/s \| CPU application \d+% load \d+%`)

// TestLiveProgressOnTerminal runs the plaintext scenario on a terminal (script(1) gives crank a
// pseudo-terminal): the status line shows the measured phase with a live requests/s figure and
// both services' CPU, before the load is done.
func TestLiveProgressOnTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		testutil.Missing(t, "script (util-linux) is not installed")
	}
	_, ports := appPorts(t)
	args := append([]string{filepath.Join(testEnv.bins, "crank"), "--config", liveConfig(t), "--scenario", "plaintext",
		"--variable", "duration=4", "--variable", "warmup=1"}, ports...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qfec", shellQuote(args), "/dev/null")
	cmd.Dir = testEnv.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := string(out)
	done := strings.Index(text, "[load] done")
	m := liveRPS.FindAllStringSubmatchIndex(text, -1)
	if done < 0 || len(m) == 0 || m[0][0] > done {
		t.Fatalf("no live requests/s while measuring before the load was done:\n%q", text)
	}
	rps, _ := strconv.ParseFloat(strings.ReplaceAll(text[m[len(m)-1][2]:m[len(m)-1][3]], ",", ""), 64)
	if rps <= 0 {
		t.Errorf("live requests/s %v", rps)
	}
	if !strings.Contains(text, "\r\x1b[K") || !strings.Contains(text, "[load] warm-up") {
		t.Errorf("the status line is not redrawn in place, or no warm-up phase:\n%q", text)
	}
	t.Logf("%d live updates while measuring, last %.0f req/s", len(m), rps)
}

// crankRun is a crank started in the background whose stderr is read line by line.
type crankRun struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr chan string // all of stderr, once it is closed
}

// startCrankUntil starts crank and returns once a line of its stderr satisfies at (after
// earlier lines, which it also sees), failing if crank ends first.
func startCrankUntil(t *testing.T, at func(line string) bool, args ...string) *crankRun {
	t.Helper()
	r := &crankRun{cmd: exec.Command(filepath.Join(testEnv.bins, "crank"), args...), stderr: make(chan string, 1)}
	r.cmd.Dir = testEnv.root
	r.cmd.Stdout = &r.stdout
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Kill(); _ = r.cmd.Wait() })
	reached := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pipe)
		var all strings.Builder
		done := false
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if !done && at(sc.Text()) {
				done = true
				close(reached)
			}
		}
		r.stderr <- all.String()
	}()
	select {
	case <-reached:
	case s := <-r.stderr:
		t.Fatalf("crank ended first:\n%s", s)
	case <-time.After(3 * time.Minute):
		t.Fatal("crank never got there")
	}
	return r
}

// interrupt sends sig and waits for crank's end; it must exit 130.
func (r *crankRun) interrupt(t *testing.T, sig syscall.Signal) string {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	errText := <-r.stderr
	err := r.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130\nstdout:\n%s\nstderr:\n%s", err, r.stdout.String(), errText)
	}
	return errText
}

// TestInterruptKeepsFinishedIterations: SIGINT during iteration 3 of 4 stops the jobs, prints
// the table of iterations 1-2 and writes them to --json, exits 130 and leaves nothing running.
func TestInterruptKeepsFinishedIterations(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	port, ports := appPorts(t)
	third := false
	r := startCrankUntil(t, func(l string) bool {
		third = third || strings.Contains(l, "iteration 3 of 4")
		return third && strings.Contains(l, "[load] starting job")
	}, append([]string{"--config", "scenarios/plaintext.yml", "--scenario", "plaintext", "--variable", "duration=3",
		"--variable", "warmup=0", "--iterations", "4", "--json", out}, ports...)...)
	r.interrupt(t, syscall.SIGINT)
	mustContain(t, "stdout", r.stdout.String(), "Interrupted: the results of the 2 finished iteration(s) of 4", "| load ", "http/rps/mean")
	res, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted == nil || res.Interrupted.FinishedIterations != 2 || res.Interrupted.Partial {
		t.Errorf("interrupted: %+v, want 2 finished, not partial", res.Interrupted)
	}
	load := res.JobResults.Jobs["load"]
	if load == nil || len(load.Iterations) != 2 || load.Results["http/rps/mean"] <= 0 {
		t.Fatalf("load: %+v, want 2 iterations with requests/s", load)
	}
	if a, b := load.Iterations[0]["http/rps/mean"], load.Iterations[1]["http/rps/mean"]; load.Results["http/rps/mean"] != (a+b)/2 {
		t.Errorf("mean %v of %v and %v", load.Results["http/rps/mean"], a, b)
	}
	if left := append(processesWith("--port", port), processesWith("wrk", ":"+port)...); len(left) > 0 {
		t.Errorf("processes left running: %v", left)
	}
}

// TestOutputPathsCheckedFirst: an unwritable --json fails before anything runs.
func TestOutputPathsCheckedFirst(t *testing.T) {
	start := time.Now()
	r := crank(t, time.Minute, "--config", "scenarios/plaintext.yml", "--scenario", "plaintext", "--json", "/nonexistent/dir/out.json")
	if r.code != 2 || !strings.Contains(r.stderr, "--json /nonexistent/dir/out.json: folder /nonexistent/dir does not exist") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "starting job") || time.Since(start) > 20*time.Second {
		t.Errorf("the run started:\n%s", r.stderr)
	}
}

// TestTerminateKeepsPartialResults: SIGTERM during the only iteration's load, once both
// services have CPU samples (the plain status line shows them), stops the jobs and writes what
// they had measured, marked partial; exit 130; nothing left running.
func TestTerminateKeepsPartialResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	port, ports := appPorts(t)
	r := startCrankUntil(t, func(l string) bool {
		return strings.Contains(l, "[load] measuring") && strings.Contains(l, "CPU application")
	},
		append([]string{"--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
			"--variable", "duration=60", "--variable", "warmup=0", "--json", out}, ports...)...)
	r.interrupt(t, syscall.SIGTERM)
	mustContain(t, "stdout", r.stdout.String(), "PARTIAL results", "| application ")
	res, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted == nil || !res.Interrupted.Partial || res.Interrupted.FinishedIterations != 0 {
		t.Errorf("interrupted: %+v, want partial", res.Interrupted)
	}
	app := res.JobResults.Jobs["application"]
	if app == nil || app.Results["benchmarks/cpu"] <= 0 || app.Environment["partial"] != true {
		t.Errorf("application: %+v, want its CPU, marked partial", app)
	}
	if left := append(processesWith("--port", port), processesWith("wrk", ":"+port)...); len(left) > 0 {
		t.Errorf("processes left running: %v", left)
	}
}
