package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestRepeat: with several iterations the services before --repeat (by default, before the last
// one) are started once and kept running; from --repeat on they restart every iteration. --span
// repeats until it has passed. Every iteration has its results, and the spread is over them.
func TestRepeat(t *testing.T) {
	for _, tc := range []struct {
		name       string
		run        Run
		starts     int
		iterations int // 0: at least 2 (span)
	}{
		{"default keeps the server", Run{Iterations: 3}, 1, 3},
		{"repeat from the server", Run{Iterations: 3, Repeat: "APPLICATION"}, 3, 3},
		{"span", Run{Span: 1500 * time.Millisecond}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startAgent(t, 0, map[string]string{"rps": "1000"})
			starts := filepath.Join(t.TempDir(), "starts")
			server := api.Job{Name: "sleeper", Executable: "/bin/sh", ReadyStateText: "ready",
				Arguments: `-c "echo x >> ` + starts + `; echo ready; exec sleep 60"`}
			load := api.Job{Name: "lines", Executable: "/bin/sh", WaitForExit: true, Parser: "lines",
				Arguments: `-c "sleep 0.3; echo http/rps/mean=$(cat ../rps)"`}
			var progress testutil.SyncBuffer
			c := New(Options{Progress: &progress, PollInterval: 50 * time.Millisecond})
			defer c.Close(context.Background())
			r := tc.run
			r.Services = []Service{{Name: "application", Job: server, Endpoints: []string{url}}, {Name: "load", Job: load, Endpoints: []string{url}}}
			res, err := c.Execute(context.Background(), r)
			if err != nil {
				t.Fatalf("%v\n%s", err, progress.String())
			}
			b, _ := os.ReadFile(starts)
			if n := strings.Count(string(b), "x"); n != tc.starts {
				t.Errorf("server started %d times, want %d\n%s", n, tc.starts, progress.String())
			}
			lr := res.JobResults.Jobs["load"]
			n := len(lr.Iterations)
			if (tc.iterations > 0 && n != tc.iterations) || (tc.iterations == 0 && n < 2) {
				t.Errorf("%d iterations, want %d (0: at least 2)", n, tc.iterations)
			}
			if sp := lr.Spread["http/rps/mean"]; sp.N != n || sp.Mean != 1000 || sp.Stdev != 0 || lr.TimelineIteration != n {
				t.Errorf("spread %+v, timeline iteration %d", sp, lr.TimelineIteration)
			}
		})
	}
}

func TestRepeatUnknownService(t *testing.T) {
	c := New(Options{})
	_, err := c.Execute(context.Background(), Run{Iterations: 2, Repeat: "nope", Services: []Service{{Name: "a"}, {Name: "b"}}})
	if err == nil || !strings.Contains(err.Error(), `--repeat "nope": no such service; services: a, b`) {
		t.Errorf("err %v", err)
	}
}
