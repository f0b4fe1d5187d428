package results

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestSpreadSurvivesJSON: the spread of several iterations is written and read back with the
// results (crank's shape is written by hand in json.go, so a new field must be listed there).
func TestSpreadSurvivesJSON(t *testing.T) {
	in := JobResult{Results: map[string]float64{"http/rps/mean": 10},
		Iterations:        []map[string]float64{{"http/rps/mean": 9}, {"http/rps/mean": 11}, {"http/rps/mean": 30}},
		Spread:            map[string]Spread{"http/rps/mean": {N: 2, Mean: 10, Stdev: 1.41, CV: 14.1, Min: 9, Max: 11}},
		Excluded:          []int{3},
		TimelineIteration: 3}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out JobResult
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Spread, in.Spread) || !reflect.DeepEqual(out.Excluded, in.Excluded) ||
		out.TimelineIteration != 3 || len(out.Iterations) != 3 {
		t.Errorf("read back %+v from %s", out, b)
	}
}
