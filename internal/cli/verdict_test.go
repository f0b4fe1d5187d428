package cli

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestVerdictAndSpreadFlags(t *testing.T) {
	none := func(string) string { return "" }
	f, err := parseRunFlags(strings.Fields("--config a.yml --scenario x --iterations 5 --exclude 1:2 --exclude-order load:http/rps/mean "+
		"--repeat load --threshold load:http/latency/99<5 --threshold http/requests/errors==0 --max-error-rate 5% --no-probe"), none)
	if err != nil {
		t.Fatal(err)
	}
	e := f.spread.exclude
	if e.Low != 1 || e.High != 2 || e.Service != "load" || e.Result != "http/rps/mean" || f.spread.repeat != "load" || !f.noProbe {
		t.Errorf("spread flags %+v", f.spread)
	}
	if len(f.verdict.thresholds) != 2 || f.verdict.thresholds[0].String() != "load: http/latency/99 < 5" || f.verdict.maxErrorRate != 0.05 {
		t.Errorf("verdict flags %+v", f.verdict)
	}
	if f, _ := parseRunFlags(strings.Fields("--config a.yml --scenario x --span 00:01:30 --max-error-rate off"), none); f.spread.span != 90*time.Second || f.verdict.maxErrorRate >= 0 {
		t.Errorf("span %s, max error rate %v", f.spread.span, f.verdict.maxErrorRate)
	}
	for args, want := range map[string]string{
		"--iterations 3 --exclude 1":                         "--exclude needs --exclude-order",
		"--exclude-order load:x":                             "--exclude-order needs --exclude",
		"--exclude 1 --exclude-order load:x":                 "--exclude can only be used with --iterations",
		"--iterations 2 --exclude 1 --exclude-order load:x":  "leaves nothing of 2 iterations",
		"--iterations 3 --exclude -1 --exclude-order load:x": "--exclude \"-1\"",
		"--iterations 3 --exclude 1 --exclude-order load":    "want SERVICE:RESULT",
		"--iterations 3 --span 10s":                          "can't be used together",
		"--span soon":                                        "want HH:mm:ss",
		"--span 00:00:00":                                    "positive",
		"--threshold http/latency/99":                        "want [service:]metric OP number",
		"--max-error-rate 5":                                 "want a share of requests",
		"--max-error-rate 200%":                              "want a share of requests",
	} {
		_, err := parseRunFlags(append(strings.Fields("--config a.yml --scenario x"), strings.Fields(args)...), none)
		var ue *usageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want usage error with %q", args, err, want)
		}
	}
}
