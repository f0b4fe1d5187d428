package influx

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/results"
)

// TestGeneratorPoints: a split load writes its merged figures to crank_summary and one
// crank_generator point per generator, tagged with its endpoint; one that fell behind or was lost
// says so.
func TestGeneratorPoints(t *testing.T) {
	res := smallResult()
	res.JobResults.Jobs["load"].Generators = []results.Generator{
		{Endpoint: "http://10.0.0.1:5010", Results: map[string]float64{"http/rps/mean": 600, "http/latency/99": 1.5}},
		{Endpoint: "http://10.0.0.2:5010", Results: map[string]float64{"http/rps/mean": 400}, FellBehind: true},
		{Endpoint: "http://10.0.0.3:5010", Failed: "agent has not answered for 3s"},
	}
	lines, err := Lines(Points(res, Tags{}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lines {
		if strings.HasPrefix(l, MeasurementGenerator+",") {
			got = append(got, l)
		}
	}
	want := []string{
		`generator=http://10.0.0.1:5010,`, `http/latency/99=1.5,http/rps/mean=600 `,
		`generator=http://10.0.0.2:5010,`, ` fell_behind=1i,http/rps/mean=400 `,
		`generator=http://10.0.0.3:5010,`, ` failed=1i `,
	}
	if len(got) != 3 {
		t.Fatalf("%d generator points, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, l := range got {
		if !strings.Contains(l, want[2*i]) || !strings.Contains(l, want[2*i+1]) || !strings.Contains(l, "service=load") {
			t.Errorf("point %d: %s\nwant %q and %q", i, l, want[2*i], want[2*i+1])
		}
	}
}
