package cli

import "testing"

// crank sweep reads crank's short and case-insensitive names of --iterations as the run does: an
// iteration count given as -i is the sweep's, not replaced by the default.
func TestSweepIterationsSpellings(t *testing.T) {
	for _, args := range [][]string{{"-i", "3"}, {"--Iterations", "3"}, {"--iterations=3"}} {
		sf, err := parseSweepFlags(append([]string{"-c", "a.yml", "-s", "x", "--matrix", "connections=1,2"}, args...), func(string) string { return "" })
		if err != nil || sf.run.iterations != 3 {
			t.Errorf("%v: %v, iterations %v", args, err, sf)
		}
	}
}
