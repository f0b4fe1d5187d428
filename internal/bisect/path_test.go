package bisect

import (
	"strings"
	"testing"
)

// TestRowSaysRerun: a commit whose iterations were run again for steal says how many, beside the
// iterations kept, in the line and in the report's cell (one Row writes both).
func TestRowSaysRerun(t *testing.T) {
	f := FigureOf("load:http/rps/mean")
	s := Step{Commit: Commit{SHA: "0123456789abcdef", Subject: "change 4"}, Mean: 70000, HalfWidth: 700, Iterations: 6,
		Change: -0.02, GoodMean: 71429, PValue: 0.2, Verdict: Good, Rerun: 2}
	r := f.Row(2, 3, s)
	if r.Iterations != "6" || r.Rerun != "2 more run again: steal" {
		t.Errorf("iterations cell %q, rerun %q", r.Iterations, r.Rerun)
	}
	want := "step 2 of about 3: 0123456789 change 4: 70,000 req/s ± 1.0 % over 6 iterations (2 more run again: steal), -2.0 % from good's 71,429 req/s beside it (p 0.200): good"
	if got := r.Line(); got != want {
		t.Errorf("line\n%s\nwant\n%s", got, want)
	}
	s.Rerun = 0
	if got := f.Row(2, 3, s).Line(); strings.Contains(got, "run again") {
		t.Errorf("no rerun, yet %q", got)
	}
}
