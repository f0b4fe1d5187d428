package threshold

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/results"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"load:http/latency/99<5":        "load: http/latency/99 < 5",
		"http/requests/errors == 0":     "http/requests/errors == 0",
		"application:benchmarks/cpu>80": "application: benchmarks/cpu > 80",
		"x/y >= 0.5":                    "x/y >= 0.5",
		"x/y<=1e3":                      "x/y <= 1000",
		"x/y === 2":                     "x/y == 2",
		"x/y != 2":                      "x/y != 2",
	} {
		got, err := Parse(in)
		if err != nil || got.String() != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"http/latency/99":       "want [service:]metric OP number",
		"<5":                    "want [service:]metric OP number",
		":x<5":                  "no metric before the operator",
		"load:http/latency/99<": `"" is not a number`,
		"x ~ 5":                 "want [service:]metric OP number",
		"x =< 5":                "want an operator",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): err %v, want %q", in, err, want)
		}
	}
}

func TestCheck(t *testing.T) {
	res := &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load":  {Results: map[string]float64{"http/latency/99": 3.2, "http/requests/errors": 0}},
		"load2": {Results: map[string]float64{"http/latency/99": 7}},
		"app":   {Results: map[string]float64{"benchmarks/cpu": 85}},
	}}}
	p := func(s string) Threshold {
		th, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return th
	}
	got := Check(res, []Threshold{p("load:http/latency/99<5"), p("http/latency/99<5"), p("app:benchmarks/cpu>80"),
		p("nope/metric<1"), p("app:http/latency/99<1")})
	var lines []string
	for _, c := range got {
		lines = append(lines, Line(c))
	}
	want := []string{
		"pass  load: http/latency/99 < 5 (3.2; --threshold)",
		"pass  load: http/latency/99 < 5 (3.2; --threshold)",
		"FAIL  load2: http/latency/99 < 5 (7; --threshold)",
		"pass  app: benchmarks/cpu > 80 (85; --threshold)",
		"FAIL  nope/metric < 1 (not reported; --threshold)",
		"FAIL  app: http/latency/99 < 1 (not reported; --threshold)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
