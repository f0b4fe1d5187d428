package cli

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
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

// wrk given a rate is refused before anything starts (it ran a closed loop at full speed, and the
// verdict read "rate-capped"), naming the setting, the tool and the tools that can; the built-in
// generator takes it. bombardier swapped in for the plaintext scenario runs, saying that it does
// not pipeline.
func TestToolSettingRefused(t *testing.T) {
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	_, stderr, code := dryRun(t, found, "--load.variables.rate", "3000")
	if code != ExitBadInput || !strings.Contains(stderr, `--load.variables.rate: service "load" (job "wrk"): wrk cannot honour rate 3000`) ||
		!strings.Contains(stderr, "a tool that can: builtin") {
		t.Errorf("wrk with a rate: exit %d\n%s", code, stderr)
	}
	if out, stderr, code := dryRun(t, found, "--load.job", "builtin", "--load.variables.rate", "3000"); code != 0 || !strings.Contains(out, "--rate 3000") {
		t.Errorf("builtin with a rate: exit %d\n%s", code, stderr)
	}
	_, stderr, code = dryRun(t, found, "--load.job", "bombardier")
	if code != 0 || !strings.Contains(stderr, "crank: warning: service \"load\" (job \"bombardier\"): bombardier cannot honour pipeline 16") {
		t.Errorf("bombardier swapped in: exit %d\n%s", code, stderr)
	}
	_, stderr, code = dryRun(t, found, "--load.job", "bombardier", "--load.variables.pipeline", "16")
	if code != ExitBadInput || !strings.Contains(stderr, "bombardier cannot honour pipeline 16") {
		t.Errorf("bombardier given a pipeline on the command line: exit %d\n%s", code, stderr)
	}
}
