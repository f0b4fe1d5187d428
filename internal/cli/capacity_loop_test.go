package cli

import (
	"strings"
	"testing"
)

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
