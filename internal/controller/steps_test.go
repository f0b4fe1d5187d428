package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestStepsApart: a run's routine step lines (starting a job, done) go to Steps, apart from
// Progress, so that a command that says its own progress by rounds can leave them out (a bisect
// printed 396 lines of them, issue 48); without Steps they go to Progress as before.
func TestStepsApart(t *testing.T) {
	a := startAgent(t, 0, nil)
	job := api.Job{Name: "once", Executable: "/bin/sh", Arguments: `-c "echo done"`, WaitForExit: true}
	run := func(opts Options) {
		c := New(opts)
		defer c.Close(context.Background())
		if _, err := c.RunOnce(context.Background(), []Service{{Name: "load", Job: job, Endpoints: []string{a}}}); err != nil {
			t.Fatal(err)
		}
	}
	var progress, steps testutil.SyncBuffer
	run(Options{Progress: &progress, Steps: &steps, PollInterval: 50 * time.Millisecond})
	if !strings.Contains(steps.String(), `[load] starting job "once"`) || strings.Contains(progress.String(), "starting job") {
		t.Errorf("steps:\n%s\nprogress:\n%s\nwant the step lines in steps only", steps.String(), progress.String())
	}
	var both testutil.SyncBuffer
	run(Options{Progress: &both, PollInterval: 50 * time.Millisecond})
	if !strings.Contains(both.String(), `[load] starting job "once"`) {
		t.Errorf("progress without Steps:\n%s\nwant the step lines", both.String())
	}
}
