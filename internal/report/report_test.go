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

func TestReportIsSelfContained(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"testdata/before.json", "testdata/after.json", "-o", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	// Nothing is fetched: no src, href, url() or @import anywhere (SVG's xmlns is a name, not a load).
	if m := regexp.MustCompile(`(?i)\b(src|href)\s*=|url\(|@import`).FindString(html); m != "" {
		t.Errorf("the page loads something: %q", m)
	}
	for _, want := range []string{"Requests per second", "CPU", "Lock contention", "Exceptions", "<svg",
		"before.json: application (7 samples)", "after.json: application (7 samples)", "Comparison", "Diagnosis",
		"runtime-counter/requests-per-second"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(html, "<figure"); n != 4 {
		t.Errorf("%d charts, want 4 (no latency timeline in these runs)", n)
	}
	if !strings.Contains(stderr.String(), "no run has a latency p99 timeline") {
		t.Errorf("the missing timelines are not said: %q", stderr.String())
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
