package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writePage runs crank report on args with -o into a temporary file and returns the page and
// stdout and stderr; the page must load nothing (no src, href, url() or @import anywhere: SVG's
// xmlns is a name, not a load).
func writePage(t *testing.T, args ...string) (html, stdout, stderr string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.html")
	var o, e bytes.Buffer
	if code := Main(context.Background(), append(args, "-o", out), &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?i)\b(src|href)\s*=|url\(|@import`).FindString(string(b)); m != "" {
		t.Errorf("the page loads something: %q", m)
	}
	return string(b), o.String(), e.String()
}

func TestReportIsSelfContained(t *testing.T) {
	html, stdout, stderr := writePage(t, "testdata/before.json", "testdata/after.json")
	for _, want := range []string{"Requests per second", "CPU", "Lock contention", "<svg",
		"before.json: application <span class=\"note\">(7 samples)</span>", "after.json: application <span class=\"note\">(7 samples)</span>",
		"Comparison", "Diagnosis", "runtime-counter/requests-per-second"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(html, "<figure"); n != 3 {
		t.Errorf("%d charts, want 3 (requests/s, CPU, lock contention: no latency timeline, no exception)", n)
	}
	if !strings.Contains(stdout, "(2 run(s), 3 chart(s))") {
		t.Errorf("stdout %q", stdout)
	}
	if !strings.Contains(stderr, "Latency over time: not available: before.json: load (wrk) reports latency once") {
		t.Errorf("the missing timelines are not said: %q", stderr)
	}
	if strings.Contains(stderr, "Exceptions") {
		t.Errorf("exceptions at 0 throughout are a result, not a missing timeline: %q", stderr)
	}
}

func TestReportUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for _, args := range [][]string{{"testdata/before.json"}, {"-o", "x.html"}, {"nope.json", "-o", filepath.Join(t.TempDir(), "x.html")}} {
		stderr.Reset()
		if code := Main(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "nope.json") {
		t.Errorf("the missing file is not named: %s", stderr.String())
	}
}
