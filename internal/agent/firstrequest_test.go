package agent

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/parsers/registry"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// firstFake is fakeParser whose tool loads the URL in its arguments.
type firstFake struct{ fakeParser }

func (firstFake) FirstRequest(args []string) (parsers.Target, error) {
	if parsers.HasFlag(args, "--grpc") {
		return parsers.Target{}, parsers.ErrNotHTTP
	}
	u, err := parsers.FirstURL(args)
	return parsers.Target{URL: u}, err
}

// firstRequests returns the job's http/firstrequest samples and its metadata entry.
func firstRequests(t *testing.T, ta *testAgent, id string) ([]float64, api.Metadata) {
	t.Helper()
	ms, err := ta.c.Measurements(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var vs []float64
	for _, m := range ms.Measurements {
		if m.Name == measure.FirstRequest {
			vs = append(vs, m.Value)
		}
	}
	for _, md := range ms.Metadata {
		if md.Name == measure.FirstRequest {
			return vs, md
		}
	}
	return vs, api.Metadata{}
}

// TestFirstRequestWrk: a real wrk job against a server that holds its first response back
// 400 ms reports http/firstrequest between 400 and 1400 ms, with crank's description and format;
// the first request is sent before the warm-up run (else another request would have paid).
func TestFirstRequestWrk(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("wrk"); err != nil {
		testutil.Missing(t, "wrk: %v", err)
	}
	addr, served := testutil.ServeSlowFirst(t, 400*time.Millisecond)
	ta := newTestAgent(t, Options{Parsers: registry.Builtin()})
	url := "http://" + addr + "/"
	id := ta.submit(t, api.Job{Service: "load", Executable: "wrk", Parser: "wrk", WaitForExit: true,
		WarmupArguments: "-c 1 -t 1 -d 1s " + url, Arguments: "-c 1 -t 1 -d 1s --latency " + url})
	if st := ta.waitState(t, id, api.StateStopped, api.StateFailed); st.State != api.StateStopped || len(st.Warnings) != 0 {
		t.Fatalf("status = %+v", st)
	}
	vs, md := firstRequests(t, ta, id)
	if len(vs) != 1 || vs[0] < 400 || vs[0] > 1400 {
		t.Errorf("http/firstrequest = %v, want one value in [400, 1400] ms", vs)
	}
	if md.ShortDescription != "First Request (ms)" || md.LongDescription != "Time to first request in ms" ||
		md.Format != "n0" || md.Aggregate != api.OpMax || md.Reduce != api.OpMax {
		t.Errorf("metadata = %+v", md)
	}
	if served.Load() < 3 {
		t.Errorf("the server answered %d requests: wrk did not run", served.Load())
	}
}

// TestFirstRequestNoAnswer: when the URL refuses connections, or there is no URL, the job says so
// in a warning and records no http/firstrequest; the tool still runs. A gRPC run has none, quietly.
func TestFirstRequestNoAnswer(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Parsers: map[string]parsers.Parser{"fake": firstFake{}}})
	url := fmt.Sprintf("http://127.0.0.1:%d/", testutil.FreePorts(t, 1)[0])
	id := ta.submit(t, api.Job{Service: "load", Executable: "sh", Parser: "fake", WaitForExit: true,
		Arguments: "-c 'echo rps=5' " + url})
	st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
	if st.State != api.StateStopped {
		t.Fatalf("status = %+v", st)
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "http/firstrequest is not measured: first request to "+url) {
		t.Errorf("warnings = %q", st.Warnings)
	}
	if vs, _ := firstRequests(t, ta, id); len(vs) != 0 {
		t.Errorf("http/firstrequest = %v, want none", vs)
	}
	id = ta.submit(t, api.Job{Service: "load", Executable: "sh", Parser: "fake", WaitForExit: true, Arguments: "-c 'echo rps=5'"})
	st = ta.waitState(t, id, api.StateStopped, api.StateFailed)
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "no argument starts with http") {
		t.Errorf("no URL: warnings = %q", st.Warnings)
	}
	// A run that sends no HTTP request (gRPC) has no first request, and no warning about it.
	id = ta.submit(t, api.Job{Service: "load", Executable: "sh", Parser: "fake", WaitForExit: true, Arguments: "-c 'echo rps=5' --grpc"})
	if st = ta.waitState(t, id, api.StateStopped, api.StateFailed); st.State != api.StateStopped || len(st.Warnings) != 0 {
		t.Errorf("gRPC: status = %+v", st)
	}
	if vs, _ := firstRequests(t, ta, id); len(vs) != 0 {
		t.Errorf("gRPC: http/firstrequest = %v, want none", vs)
	}
}
