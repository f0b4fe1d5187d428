package cli

import (
	"strings"
	"testing"
)

func TestProbeSwitches(t *testing.T) {
	none := func(string) string { return "" }
	for args, want := range map[string][2]bool{
		"":                   {false, false},
		"--probe":            {false, true},
		"--no-probe":         {true, false},
		"--probe --no-probe": {true, false},
		"--no-probe --probe": {false, true},
	} {
		f, err := parseRunFlags(append(strings.Fields("--config a.yml --scenario x"), strings.Fields(args)...), none)
		if err != nil || f.noProbe != want[0] || f.forceProbe != want[1] {
			t.Errorf("%q: noProbe %v forceProbe %v (%v), want %v", args, f.noProbe, f.forceProbe, err, want)
		}
	}
}
