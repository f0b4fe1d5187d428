package registry_test

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/parsers/registry"
)

func TestBuiltin(t *testing.T) {
	got := registry.Builtin()
	names := slices.Sorted(maps.Keys(got))
	if want := []string{"bombardier", "builtin", "ghz", "h2load", "wrk"}; !slices.Equal(names, want) {
		t.Fatalf("Builtin() names = %v, want %v", names, want)
	}
	for name, p := range got {
		if p.Name() != name {
			t.Errorf("Builtin()[%q].Name() = %q", name, p.Name())
		}
	}
	if script := got["wrk"].Files()["scripts/pipeline.lua"]; !strings.Contains(string(script), "function request") {
		t.Errorf("wrk Files() has no pipelining script: %q", script)
	}
}

func TestBuiltinIsFresh(t *testing.T) {
	a := registry.Builtin()
	delete(a, "wrk")
	if _, ok := registry.Builtin()["wrk"]; !ok {
		t.Error("deleting from one Builtin() map changed the next")
	}
}

// TestEveryParserRejectsEmptyOutput runs each parser on nothing: a quick check that the table holds
// working parsers whose errors name their tool (each package tests its parser on real output).
func TestEveryParserRejectsEmptyOutput(t *testing.T) {
	for name, p := range registry.Builtin() {
		m, err := p.Parse(strings.NewReader(""))
		if err == nil || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s: Parse(\"\") = %v, %v; want an error naming the tool", name, m, err)
		}
	}
}

// TestFirstRequestTargets: every HTTP load parser finds the URL its tool loads, and the protocol,
// in its arguments; ghz (gRPC) has no first request.
func TestFirstRequestTargets(t *testing.T) {
	ps := registry.Builtin()
	for _, c := range []struct {
		parser, args, url, err string
		h2                     bool
	}{
		{"wrk", "-c 16 -t 1 -d 2s --latency -s scripts/pipeline.lua http://127.0.0.1:5000/plaintext -- 16", "http://127.0.0.1:5000/plaintext", "", false},
		{"wrk", "-c 16 -d 2s HTTPS://h:1/", "HTTPS://h:1/", "", false},
		{"wrk", "-c 16 -d 2s", "", "no argument starts with http", false},
		{"bombardier", "-c 16 -d 2s --print r --format json http://h:5000/", "http://h:5000/", "", false},
		{"bombardier", "--http2 -c 16 https://h:5000/", "https://h:5000/", "", true},
		{"h2load", "-c 2 -m 4 -D 2 http://h:5000/x", "http://h:5000/x", "", true},
		{"h2load", "http://h:5000/x --h1 -c 2", "http://h:5000/x", "", false},
		{"builtin", "load http://h:5000/ -c 32 --output json -p 1", "http://h:5000/", "", false},
		{"builtin", "load http://h:5000/ -c 32 --protocol h2 -m 4", "http://h:5000/", "", true},
		{"builtin", "load http://h:5000/ --protocol grpc", "", "the run sends no HTTP request: a gRPC run", false},
	} {
		fr, ok := ps[c.parser].(parsers.FirstRequester)
		if !ok {
			t.Fatalf("%s is no FirstRequester", c.parser)
		}
		got, err := fr.FirstRequest(strings.Fields(c.args))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(c.err, "no HTTP") != errors.Is(err, parsers.ErrNotHTTP) {
				t.Errorf("%s %q: %+v, %v; want an error with %q", c.parser, c.args, got, err, c.err)
			}
			continue
		}
		if err != nil || got.URL != c.url || got.HTTP2 != c.h2 {
			t.Errorf("%s %q = %+v, %v; want %s http2=%v", c.parser, c.args, got, err, c.url, c.h2)
		}
	}
	if _, ok := ps["ghz"].(parsers.FirstRequester); ok {
		t.Error("ghz should send no HTTP first request")
	}
}

// TestRealOutputsArePlausible: every captured output of a real tool that its parser accepts gives
// figures the agent's plausibility check keeps (a check that flagged honest runs would hide them).
func TestRealOutputsArePlausible(t *testing.T) {
	checked := 0
	for name, p := range registry.Builtin() {
		files, err := filepath.Glob(filepath.Join("..", name, "testdata", "*", "output.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue // a folder (fuzz corpora)
			}
			values, err := p.Parse(bytes.NewReader(b))
			if err != nil {
				continue
			}
			checked++
			if why := parsers.Implausible(values); len(why) > 0 {
				t.Errorf("%s: %s: flagged %v", name, f, why)
			}
		}
	}
	t.Logf("%d captured outputs checked", checked)
	if checked < 10 {
		t.Errorf("only %d captured outputs parsed: the testdata moved?", checked)
	}
}
