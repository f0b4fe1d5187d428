package loadtool

import (
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
)

func TestOf(t *testing.T) {
	cases := []struct {
		parser, exe string
		vars        map[string]any
		mode        string
		loop        Loop
		latency     Correction
		p95         bool
	}{
		{"builtin", "crank", map[string]any{"rate": 0}, "closed loop", Closed, NotCorrected, true},
		{"builtin", "/opt/bin/crank", map[string]any{"rate": 1000}, "fixed rate", Open, Corrected, true},
		{"builtin", "crank", map[string]any{"rate": "1000"}, "fixed rate", Open, Corrected, true},
		{"wrk", "wrk", map[string]any{"connections": 32}, "closed loop", Closed, BackFilled, false},
		{"bombardier", "bombardier", map[string]any{"rate": 0}, "closed loop", Closed, NotCorrected, true},
		{"bombardier", "bombardier", map[string]any{"rate": 1000}, "-r rate", RateLimited, NotCorrected, true},
		{"h2load", "h2load", nil, "closed loop", Closed, NotCorrected, false},
		{"ghz", "", nil, "closed loop", Closed, NotCorrected, true}, // a Docker job names no program
	}
	for _, c := range cases {
		m, ok := Of(c.parser, c.exe, c.vars)
		if !ok {
			t.Fatalf("%s %v: no model", c.parser, c.vars)
		}
		if m.Tool != c.parser || m.Mode != c.mode || m.Loop != c.loop || m.Latency != c.latency {
			t.Errorf("%s %v: got %s, %s, %s; want %s, %s, %s", c.parser, c.vars, m.Mode, m.Loop, m.Latency, c.mode, c.loop, c.latency)
		}
		if got := slices.Contains(m.Percentiles, measure.Latency95); got != c.p95 {
			t.Errorf("%s: p95 %v, want %v", c.parser, got, c.p95)
		}
		if m.RPS == "" || m.Note == "" {
			t.Errorf("%s: no rps or note: %+v", c.parser, m)
		}
		if c.loop != Open && !strings.Contains(m.Note, "not corrected for coordinated omission") {
			t.Errorf("%s %s: the note does not say it is not corrected: %q", c.parser, c.mode, m.Note)
		}
	}
}

func TestOfUnknown(t *testing.T) {
	for _, c := range [][2]string{{"wrk", "wrk2"}, {"none", "./bin/plaintext"}, {"", ""}} {
		if m, ok := Of(c[0], c[1], nil); ok {
			t.Errorf("%v: a model %+v for a job that is no known tool", c, m)
		}
		if p := Check(c[0], c[1], map[string]any{"rate": 1000, "pipeline": 16}); p != nil {
			t.Errorf("%v: problems %v for a job that is no known tool", c, p)
		}
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		tool    string
		vars    map[string]any
		setting string // "" for none
		refused bool
		can     string // a tool named as one that can
	}{
		{"wrk", map[string]any{"rate": 3000}, "rate", true, "builtin"},
		{"wrk", map[string]any{"rate": "3000"}, "rate", true, "bombardier"},
		{"wrk", map[string]any{"rate": 0, "pipeline": 16, "threads": 2, "connections": 256}, "", false, ""},
		{"wrk", map[string]any{"streams": 70}, "streams", true, "h2load"},
		{"wrk", map[string]any{"streams": 1}, "", false, ""},
		{"bombardier", map[string]any{"rate": 1000}, "", false, ""},
		{"bombardier", map[string]any{"pipeline": 16}, "pipeline", true, "wrk"},
		{"bombardier", map[string]any{"pipeline": 1}, "", false, ""},
		{"bombardier", map[string]any{"threads": 28}, "threads", false, ""},
		{"h2load", map[string]any{"rate": 500}, "rate", true, "builtin"},
		{"h2load", map[string]any{"streams": 70, "threads": 2}, "", false, ""},
		{"h2load", map[string]any{"pipeline": 16}, "pipeline", true, "builtin"},
		{"ghz", map[string]any{"rate": 500}, "rate", true, "builtin"},
		{"ghz", map[string]any{"streams": 70}, "", false, ""},
		{"ghz", map[string]any{"threads": 4}, "threads", false, ""},
		{"builtin", map[string]any{"rate": 1000, "pipeline": 16, "threads": 1}, "", false, ""},
		{"builtin", map[string]any{"protocol": "h2", "pipeline": 16}, "pipeline", true, "wrk"},
		{"builtin", map[string]any{"protocol": "grpc", "streams": 70}, "", false, ""},
		{"builtin", map[string]any{"protocol": "http1", "streams": 70}, "streams", true, "h2load"},
	}
	for _, c := range cases {
		exe := c.tool
		if exe == "builtin" {
			exe = "crank"
		}
		ps := Check(c.tool, exe, c.vars)
		if c.setting == "" {
			if len(ps) > 0 {
				t.Errorf("%s %v: %v, want none", c.tool, c.vars, ps)
			}
			continue
		}
		if len(ps) != 1 {
			t.Fatalf("%s %v: %v, want one problem with %s", c.tool, c.vars, ps, c.setting)
		}
		p := ps[0]
		msg := p.String()
		if p.Setting != c.setting || p.Refused != c.refused || p.Tool != c.tool {
			t.Errorf("%s %v: %+v, want %s refused %v", c.tool, c.vars, p, c.setting, c.refused)
		}
		if !strings.Contains(msg, c.tool) || !strings.Contains(msg, c.setting) || !strings.Contains(msg, c.can) {
			t.Errorf("%s %v: %q does not name the tool, the setting and %q", c.tool, c.vars, msg, c.can)
		}
		if slices.ContainsFunc(p.Can, func(s string) bool { return strings.HasPrefix(s, c.tool+" ") }) {
			t.Errorf("%s: names itself as a tool that can: %v", c.tool, p.Can)
		}
	}
}

// Every tool says how it takes every setting, or why not.
func TestTableComplete(t *testing.T) {
	for _, tl := range tools {
		for _, name := range Settings {
			s, ok := tl.settings[name]
			if !ok || (s.how == "" && s.cannot == "" && s.warnOnly == "") {
				t.Errorf("%s: says nothing of %s", tl.name, name)
			}
		}
	}
	if got := Tools(); !slices.Equal(got, []string{"builtin", "wrk", "bombardier", "h2load", "ghz"}) {
		t.Errorf("Tools() = %v", got)
	}
}
