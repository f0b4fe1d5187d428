package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestHostileTextCannotReachTheTerminal: a job whose output (shown with displayOutput) holds
// OSC 52 (the clipboard), a window title and a screen clear, and an agent whose measurement name
// holds a newline and a table row, had them printed raw: the escapes reached the terminal and the
// table gained a forged row. Now crank prints them escaped, visibly, and the rest of the text
// (UTF-8 included) as it is (issue 41, LOW).
func TestHostileTextCannotReachTheTerminal(t *testing.T) {
	forged := "lat\n| forged/row | 0 | ms |"
	names := func(now time.Time) api.Measurements {
		return api.Measurements{
			Metadata:     []api.Metadata{{Name: forged, Aggregate: api.OpMax, Reduce: api.OpMax, ShortDescription: "\x1b[2J"}, {Name: "µs/東京\x1b]0;pwned\x07", Aggregate: api.OpMax, Reduce: api.OpMax}},
			Measurements: []api.Measurement{{Name: forged, Timestamp: now, Value: 1}, {Name: "µs/東京\x1b]0;pwned\x07", Timestamp: now, Value: 2}},
		}
	}
	url := hostileAgent(t, "hostile-token", answerMeasurements(names))
	cfg := writeFile(t, t.TempDir(), "noisy.yml", fmt.Sprintf(`
jobs:
  noisy:
    executable: /bin/sh
    arguments: "-c \"printf 'clip \\033]52;c;aWQK\\007 title \\033]0;owned\\007 clear \\033[2J\\033[H naïve\\n'\""
    waitForExit: true
    options: { displayOutput: true }
scenarios:
  noisy:
    load: { job: noisy }
profiles:
  hostile:
    agents:
      load: { endpoints: [ "%s" ] }
`, url))
	r := crankEnv(t, time.Minute, []string{"CRANK_AGENT_TOKEN=hostile-token"},
		"--config", cfg, "--scenario", "noisy", "--profile", "hostile")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	all := r.stdout + r.stderr
	if i := strings.IndexAny(all, "\x1b\x07"); i >= 0 {
		t.Errorf("an escape reached the terminal at %d: %q", i, all[max(0, i-40):min(len(all), i+40)])
	}
	mustContain(t, "the job's output, escaped", r.stderr, `[load] clip \x1b]52;c;aWQK\x07 title \x1b]0;owned\x07 clear \x1b[2J\x1b[H naïve`)
	mustContain(t, "the table", r.stdout, `| lat\n| forged/row | 0 | ms |`, `µs/東京\x1b]0;pwned\x07`)
	if regexp.MustCompile(`(?m)^\| forged/row`).MatchString(r.stdout) {
		t.Errorf("the measurement name forged a table row:\n%s", r.stdout)
	}

	// --quiet hides the progress, not what the scenario asked to display (issue 48).
	r = crankEnv(t, time.Minute, []string{"CRANK_AGENT_TOKEN=hostile-token"},
		"--config", cfg, "--scenario", "noisy", "--profile", "hostile", "--quiet")
	if r.code != 0 {
		t.Fatalf("--quiet: exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "--quiet: the job's output, escaped", r.stderr, `[load] clip \x1b]52;c;aWQK\x07 title`)
	if strings.Contains(r.stderr, "starting job") || strings.ContainsAny(r.stderr, "\x1b\x07") {
		t.Errorf("--quiet printed progress or an escape:\n%q", r.stderr)
	}
}
