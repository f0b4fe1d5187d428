package suggest

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"iterations", "interval", "http/latency/99", "http/latency/90", "duration"}
	cases := []struct {
		s, want string
		max     int
	}{
		{"iteration", "iterations", 2},
		{"ITERATION", "iterations", 2},
		{"http/latency/p99", "http/latency/99", 2},
		{"duraton", "duration", 2},
		{"zzz", "", 2},
		{"http/latency/p999", "", 1},
	}
	for _, c := range cases {
		if got := Closest(c.s, known, c.max); got != c.want {
			t.Errorf("Closest(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
	if got := Near("connectons", []string{"connections", "threads"}); got != "connections" {
		t.Errorf("Near = %q", got)
	}
	if got := Near("ab", []string{"xyz"}); got != "" {
		t.Errorf("Near(ab) = %q, want none", got)
	}
}
