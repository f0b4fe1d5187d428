package duet

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/threshold"
)

// TestParseFlags: the command's own flags wherever they stand, as --name value or --name=value;
// every other argument is a run option, kept in order; a bad value names its flag.
func TestParseFlags(t *testing.T) {
	fl, rest, err := ParseFlags([]string{"--config", "a.yml", "--base", "v1", "--head=main", "--scenario", "app",
		"--metric", "application:benchmarks/cpu/per-request", "--threshold", "1%", "--max-rounds=20", "--limit", "5m",
		"--interleaved", "--variable", "rate=3000", "--alpha", "0.01"})
	if err != nil {
		t.Fatal(err)
	}
	want := Flags{Base: "v1", Head: "main", Metric: threshold.Threshold{Service: "application", Metric: "benchmarks/cpu/per-request", Source: "--metric"},
		Threshold: 0.01, Alpha: 0.01, MaxRounds: 20, Limit: 5 * time.Minute, Interleaved: true}
	if fl != want || !slices.Equal(rest, []string{"--config", "a.yml", "--scenario", "app", "--variable", "rate=3000"}) {
		t.Errorf("flags %+v, rest %v", fl, rest)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--base", "v1"}, "--head REF"},
		{[]string{"--base", "v1", "--head", "v2", "--threshold", "five"}, "--threshold"},
		{[]string{"--base", "v1", "--head", "v2", "--max-rounds", "many"}, "--max-rounds"},
		{[]string{"--base", "v1", "--head", "v2", "--limit", "10"}, "--limit"},
		{[]string{"--base", "v1", "--head"}, "--head needs a value"},
	} {
		if _, _, err := ParseFlags(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %s", c.args, err, c.want)
		}
	}
	if RefsGiven([]string{"a.json", "b.json", "--threshold", "5%"}) || !RefsGiven([]string{"--head=x"}) {
		t.Error("RefsGiven: files are not refs; --head=x is")
	}
}
