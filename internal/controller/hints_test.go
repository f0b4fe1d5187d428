package controller

import (
	"bytes"
	"context"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestUnreachableAgentSaysHowToStartOne: a refused connection names the URL and the command that
// starts an agent there; a host beyond loopback is told it needs a token.
func TestUnreachableAgentSaysHowToStartOne(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	c := New(Options{})
	defer c.Close(context.Background())
	_, err = c.client(context.Background(), u, "")
	if err == nil {
		t.Fatalf("connecting to %s succeeded with nothing listening", u)
	}
	for _, want := range []string{"agent " + u + " is unreachable", "connection refused", "`bin/crank-agent --url " + u + "`", "embedded"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "CRANK_AGENT_TOKEN") {
		t.Errorf("a loopback agent needs no token, the error says it does: %v", err)
	}
	if h := unreachableHint("http://10.0.0.2:5010", &net.OpError{Op: "dial", Err: context.DeadlineExceeded}); !strings.Contains(h, "`CRANK_AGENT_TOKEN=... bin/crank-agent --url http://10.0.0.2:5010`") {
		t.Errorf("hint for a lab machine = %q, want the token and the URL", h)
	}
	if h := unreachableHint(u, &api.AgentError{URL: u, StatusCode: 401, Message: "bad token"}); h != "" {
		t.Errorf("a refused token is not fixed by starting an agent, hint = %q", h)
	}
}

// TestPortInUseNamesTheVariable: the bind error of a port held by another listener names the
// job variable that moves it.
func TestPortInUseNamesTheVariable(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_, err = net.Listen("tcp", held.Addr().String())
	if err == nil {
		t.Fatal("a second listener on a held port succeeded")
	}
	port := held.Addr().(*net.TCPAddr).Port
	job := api.Job{Variables: map[string]any{"serverPort": port, "metricsPort": port + 1, "connections": 32}}
	output := "starting\n" + err.Error() + "\n"
	got := portInUseHint(job, output)
	want := "port " + strconv.Itoa(port) + " is in use"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "pass --variable serverPort=NNNN") || strings.Contains(got, "metricsPort") {
		t.Errorf("hint = %q, want it to start %q and name serverPort only", got, want)
	}
	nginx := "nginx: [emerg] bind() to 0.0.0.0:" + strconv.Itoa(port+1) + " failed (98: Address already in use)"
	if got := portInUseHint(job, nginx); !strings.Contains(got, "--variable metricsPort=NNNN") {
		t.Errorf("nginx's bind error: hint = %q, want metricsPort", got)
	}
	if got := portInUseHint(api.Job{}, err.Error()); !strings.Contains(got, "give the job another port") {
		t.Errorf("no variable holds the port: hint = %q", got)
	}
	if got := portInUseHint(job, "panic: nil map"); got != "" {
		t.Errorf("no bind error: hint = %q, want none", got)
	}
}

// TestBuildIsNotSilent: without a status line (a sweep, a capacity search) a build in progress
// is said every BuildNoteEvery, with its elapsed time.
func TestBuildIsNotSilent(t *testing.T) {
	a := startAgent(t, 0, nil)
	server := api.Job{Name: "slow-build", BuildCommand: "sleep 1.2", Executable: "/bin/sh",
		Arguments: `-c "echo ready; exec sleep 60"`, ReadyStateText: "ready"}
	load := api.Job{Name: "lines", Executable: "/bin/sh", WaitForExit: true, Parser: "lines", Arguments: `-c "echo http/rps/mean=1"`}
	var progress testutil.SyncBuffer
	c := New(Options{Progress: &progress, PollInterval: 50 * time.Millisecond, BuildNoteEvery: 300 * time.Millisecond})
	defer c.Close(context.Background())
	if _, err := c.RunOnce(context.Background(), []Service{
		{Name: "application", Job: server, Endpoints: []string{a}},
		{Name: "load", Job: load, Endpoints: []string{a}},
	}); err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	notes := strings.Count(progress.String(), "[application] still building on "+a+" (")
	if notes < 2 || notes > 5 {
		t.Errorf("%d build notes over a 1.2 s build every 300 ms, want 2 to 5:\n%s", notes, progress.String())
	}
	if strings.Contains(progress.String(), "[load] still building") {
		t.Errorf("a job without a build command is said to build:\n%s", progress.String())
	}
}

// TestAgentTextIsCleaned: an agent's warning holding a newline and escapes, and a failed job's
// error and output holding escapes, are printed and reported escaped: no forged line, no escape
// reaching the terminal (issue 41, LOW).
func TestAgentTextIsCleaned(t *testing.T) {
	var progress bytes.Buffer
	c := New(Options{Progress: &progress})
	in := &instance{service: "load", url: "http://agent", job: api.Job{WaitForExit: true},
		status: api.JobStatus{Warnings: []string{"cpuSet ignored\n[load] done on http://agent (1s)\x1b]0;title\x07"}}}
	c.reportWarnings(in)
	want := "[load] warning from http://agent: cpuSet ignored\\n[load] done on http://agent (1s)\\x1b]0;title\\x07\n"
	if progress.String() != want {
		t.Errorf("printed %q, want %q", progress.String(), want)
	}
	if got := lastLines("ok\n\x1b[2Jcleared\n", 5); got != `ok`+"\n"+`\x1b[2Jcleared` {
		t.Errorf("lastLines = %q", got)
	}
}
