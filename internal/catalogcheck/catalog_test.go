package catalogcheck

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/results/resultstest"
)

// everyFigure is a result in which one service reports every figure of the catalog, each with its
// catalog metadata and a value of its own, over three iterations.
func everyFigure(scale float64) *results.Result {
	cat := measure.Default()
	jr := &results.JobResult{Results: map[string]float64{}, Environment: map[string]any{}, Variables: map[string]any{}}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range cat {
			if !yield(n) {
				return
			}
		}
	})
	for i, n := range names {
		v := float64(i+1) * scale
		jr.Results[n] = v
		jr.Metadata = append(jr.Metadata, cat[n])
	}
	for it := range 3 {
		row := map[string]float64{}
		for n, v := range jr.Results {
			row[n] = v * (1 + 0.001*float64(it-1))
		}
		jr.Iterations = append(jr.Iterations, row)
	}
	return &results.Result{StartTime: time.Unix(1, 0), JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"svc": jr}}}
}

// TestEveryOutputSaysTheCatalogsUnit: the table, the JSON read back and crank compare show each
// figure with the catalog's unit, and the table and the JSON its value.
func TestEveryOutputSaysTheCatalogsUnit(t *testing.T) {
	cat := measure.Default()
	res := everyFigure(1)
	path := filepath.Join(t.TempDir(), "r.json")
	if err := results.WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	back := resultstest.ReadResult(t, path)
	jr := back.JobResults.Jobs["svc"]
	for _, md := range jr.Metadata {
		if want := cat[md.Name]; md.Unit != want.Unit || md.Aggregate != want.Aggregate || md.Reduce != want.Reduce {
			t.Errorf("JSON %s: unit %q aggregate %q reduce %q, catalog %q %q %q", md.Name, md.Unit, md.Aggregate, md.Reduce, want.Unit, want.Aggregate, want.Reduce)
		}
		if jr.Results[md.Name] != res.JobResults.Jobs["svc"].Results[md.Name] {
			t.Errorf("JSON %s: value %v, wrote %v", md.Name, jr.Results[md.Name], res.JobResults.Jobs["svc"].Results[md.Name])
		}
	}
	shown := 0
	for _, row := range results.Rows(jr) {
		md, ok := cat[row[0]]
		if !ok {
			t.Errorf("table shows %q, which the catalog lacks", row[0])
			continue
		}
		shown++
		if row[2] != md.Unit {
			t.Errorf("table %s: unit %q, catalog %q", row[0], row[2], md.Unit)
		}
		if want := results.Format(jr.Results[row[0]], md.Format); !strings.HasPrefix(row[1], want) {
			t.Errorf("table %s: %q, want the value %s", row[0], row[1], want)
		}
	}
	if shown == 0 {
		t.Fatal("the table shows nothing")
	}
	head := everyFigure(1.5)
	rep, err := gate.CompareResults(back, head, gate.CompareOptions{Metrics: slices.Collect(func(yield func(string) bool) {
		for n := range cat {
			if _, alias := measure.Aliases[n]; !alias && !yield(n) {
				return
			}
		}
	})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, sr := range rep.Services {
		for _, row := range sr.Rows {
			compared++
			if want := cat[row.Metric].Unit; row.Unit != want {
				t.Errorf("compare %s: unit %q, catalog %q", row.Metric, row.Unit, want)
			}
		}
	}
	if compared == 0 {
		t.Error("compare shows nothing")
	}
}

// TestVerdictFiguresAsTheTable: a figure a verdict rests on is written as the table writes the same
// figure (the catalog's rounding and unit): a steal of 0.17 % showed "0.2" in the table and
// "0.17 %" in the verdict beside it.
func TestVerdictFiguresAsTheTable(t *testing.T) {
	cat := measure.Default()
	res := everyFigure(0.0123)
	jr := res.JobResults.Jobs["svc"]
	checked := 0
	for _, row := range results.Rows(jr) {
		md, ok := cat[row[0]]
		if !ok || md.Aggregate == "" {
			continue
		}
		fig := results.Figure{Service: "svc", Name: md.Name, Value: jr.Results[md.Name], Unit: md.Unit}
		want := results.Format(jr.Results[md.Name], md.Format)
		if !strings.HasPrefix(row[1], want) || !strings.HasSuffix(fig.String(), " "+strings.TrimSpace(want+" "+md.Unit)) {
			t.Errorf("%s: table %q, verdict figure %q; want both to write %s", md.Name, row[1], fig.String(), want)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no figure checked")
	}
}
