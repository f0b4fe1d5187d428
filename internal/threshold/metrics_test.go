package threshold

import (
	"strings"
	"testing"
)

func TestCheckMetrics(t *testing.T) {
	known := []string{"http/latency/99", "http/latency/90", "http/rps/mean", "app/panics"}
	ths := []Threshold{
		{Service: "load", Metric: "http/latency/99", Op: "<", Value: 5, Source: "--threshold"},
		{Service: "load", Metric: "http/latency/p99", Op: "<", Value: 5, Source: "--threshold"},
		{Metric: "http/rps/maen", Op: ">", Value: 1, Source: "main.yml:12"},
		{Metric: "myjob/custom-figure", Op: ">", Value: 1, Source: "main.yml:13"},
		{Metric: "app/panics", Op: "==", Value: 0, Source: "main.yml:14"},
	}
	errs, warnings := CheckMetrics(ths, known)
	if len(errs) != 2 || len(warnings) != 1 {
		t.Fatalf("errors %v, warnings %v: want 2 and 1", errs, warnings)
	}
	for i, want := range []string{
		`threshold "load: http/latency/p99 < 5" (--threshold): http/latency/p99 is not a figure crank knows; did you mean http/latency/99?`,
		`threshold "http/rps/maen > 1" (main.yml:12): http/rps/maen is not a figure crank knows; did you mean http/rps/mean?`,
	} {
		if errs[i].Error() != want {
			t.Errorf("error %d:\n%s\nwant:\n%s", i, errs[i], want)
		}
	}
	if !strings.Contains(warnings[0], "myjob/custom-figure is not in the catalog") {
		t.Errorf("warning %q", warnings[0])
	}
}
