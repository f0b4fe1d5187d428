package catalogcheck

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/report"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestBisectSaysTheCatalogsUnit: whichever figure is bisected, crank bisect's lines and crank
// report's bisect table write each commit's mean with the catalog's unit and rounding, the same text.
func TestBisectSaysTheCatalogsUnit(t *testing.T) {
	good := bisect.Commit{SHA: "1111111111111111", Subject: "good"}
	bad := bisect.Commit{SHA: "2222222222222222", Subject: "bad"}
	for i, md := range measure.List() {
		v := 1234.5678 * float64(i+1)
		r := bisect.Result{Metric: "svc:" + md.Name, Good: good, Bad: bad, FirstBad: bad.SHA,
			Baseline: bisect.Step{Commit: good, Mean: v, HalfWidth: v / 50, Iterations: 3, Verdict: bisect.Good},
			BadEnd:   bisect.Step{Commit: bad, Mean: 2 * v, HalfWidth: v / 50, Iterations: 3, Change: 1, PValue: 0.01, Verdict: bisect.Bad, Position: 1}}
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "bisect.json")
		doc := &results.Result{StartTime: time.Unix(1, 0), Bisect: raw, JobResults: results.JobResults{Jobs: map[string]*results.JobResult{}}}
		if err := results.WriteFile(path, doc); err != nil {
			t.Fatal(err)
		}
		pg, err := report.Build([]string{path})
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.Bisect) != 1 || len(pg.Bisect[0].Rows) != 2 {
			t.Fatalf("%s: the page's bisect %+v, want the two ends", md.Name, pg.Bisect)
		}
		for j, s := range []bisect.Step{r.Baseline, r.BadEnd} {
			want := strings.TrimSpace(results.Format(s.Mean, md.Format) + " " + md.Unit)
			row := pg.Bisect[0].Rows[j]
			if row.Mean != want {
				t.Errorf("report bisect %s: mean %q, want %q (the catalog's %s, %q)", md.Name, row.Mean, want, md.Format, md.Unit)
			}
			if line := r.Path()[j].Line(); !strings.Contains(line, ": "+want+" ± ") {
				t.Errorf("crank bisect %s: %q, want the mean %q", md.Name, line, want)
			}
		}
	}
}
