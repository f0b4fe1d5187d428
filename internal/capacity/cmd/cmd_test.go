package cmd

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// crank capacity steps an open-loop rate: a tool that takes no rate (wrk) or paces one in a closed
// loop (bombardier's -r, whose latency is not corrected for coordinated omission) is refused,
// naming the built-in generator's fixed rate; the built-in generator and unknown tools pass.
func TestCapacityWantsAnOpenLoop(t *testing.T) {
	cases := []struct {
		job  api.Job
		want string // "" for none
	}{
		{api.Job{Name: "wrk", Parser: "wrk", Executable: "wrk", WaitForExit: true}, `service "load" (job "wrk") does not take the rate variable: wrk runs a closed loop`},
		{api.Job{Name: "bombardier", Parser: "bombardier", Executable: "bombardier", WaitForExit: true, Variables: map[string]any{"rate": 0}},
			"bombardier at a rate runs a rate-limited closed loop whose latency is not corrected"},
		{api.Job{Name: "builtin", Parser: "builtin", Executable: "crank", WaitForExit: true, Variables: map[string]any{"rate": 0}}, ""},
		{api.Job{Name: "mine", Parser: "wrk", Executable: "wrk2", WaitForExit: true}, ""},
	}
	for _, c := range cases {
		r := &config.Resolved{Services: []config.Service{{Name: "application", Job: api.Job{Name: "app"}}, {Name: "load", Job: c.job}}}
		err := checkOpenLoop(r)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.job.Name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--load.job builtin")):
			t.Errorf("%s: %v; want %q naming --load.job builtin", c.job.Name, err, c.want)
		}
	}
}

// TestSearchCannotTell: a search that cannot settle (here stopped by --max-steps before any rate
// passed; capacity's own tests give the other ways) exits 3, crank compare's inconclusive, saying
// why, its bracket and what would tell; never 0 beside a guess. A settled search exits 0 quietly.
func TestSearchCannotTell(t *testing.T) {
	var errOut bytes.Buffer
	res := capacity.Result{Stopped: "--max-steps 2 reached", FailedAt: 500,
		Inconclusive: "the search stopped (--max-steps 2 reached) before its bracket was within --precision 5 %", WouldTell: "more steps"}
	want := "crank capacity: cannot tell the capacity: the search stopped (--max-steps 2 reached) before its bracket was within --precision 5 %; " +
		"capacity below 500 req/s as measured; what would tell: more steps\n"
	if code := searchCode(context.Background(), &errOut, res, nil); code != 3 || errOut.String() != want {
		t.Errorf("exit %d, stderr %q; want 3 and %q", code, errOut.String(), want)
	}
	errOut.Reset()
	if code := searchCode(context.Background(), &errOut, capacity.Result{Rate: 900, FailedAt: 930}, nil); code != runner.ExitOK || errOut.Len() != 0 {
		t.Errorf("with a capacity: exit %d, stderr %q", code, errOut.String())
	}
	errOut.Reset()
	if code := searchCode(context.Background(), &errOut, capacity.Result{}, fmt.Errorf("%w (10 req/s)", capacity.ErrUnmet)); code != runner.ExitFailed ||
		!strings.Contains(errOut.String(), "not met even at the lowest rate (10 req/s)") {
		t.Errorf("unmet: exit %d, stderr %q", code, errOut.String())
	}
}
