package registry_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/drivers/registry"
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
