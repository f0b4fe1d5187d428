package influx

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/influxtest"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestPublishCapacity: a capacity search's answer and each of its steps reach a real InfluxDB with
// their values, and no crank_summary point (a knee step is not the scenario's run).
func TestPublishCapacity(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	c := capacity.Result{Rate: 969, FailedAt: 1000, FailedSLO: []string{"load: http/latency/99 < 20 (120.45)"},
		SLOs: []string{"load:http/latency/99<20"}, Verdict: "contention-bound at the knee", VerdictKind: "contention-bound",
		Steps: []capacity.Step{
			{Asked: 500, Achieved: 500, Latency99: 1.47, ServerCPU: 31, Pass: true},
			{Asked: 1000, Achieved: 972, Latency99: 120.45, ServerCPU: 53, LockContention: 48610.87, Failed: []string{"p99"}, Repeated: true, Busy: true},
			{Asked: 1000, Achieved: 970, Latency99: 118.2, ServerCPU: 52, Failed: []string{"p99"}, Repeat: true},
			{Asked: 969, Achieved: 969, Latency99: 7.41, ServerCPU: 50, Pass: true},
		}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	res := &results.Result{StartTime: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC), Scenario: "mutex",
		JobResults: results.JobResults{Jobs: map[string]*results.JobResult{}}, Capacity: b}
	if _, err := Publish(context.Background(), cfg, res, nil); err != nil {
		t.Fatal(err)
	}
	if v := scalar(t, srv.URL, srv.DB, `SELECT "rate" FROM crank_capacity WHERE scenario = 'mutex'`, "rate"); v != 969.0 {
		t.Errorf("capacity rate %v, want 969", v)
	}
	if v := scalar(t, srv.URL, srv.DB, `SELECT "verdictKind" FROM crank_capacity`, "verdictKind"); v != "contention-bound" {
		t.Errorf("verdict kind %v", v)
	}
	steps := query(t, srv.URL, srv.DB, `SELECT "asked", "achieved", "latency99", "pass", "disturbed" FROM crank_capacity_step GROUP BY "step"`)
	got := map[string]string{}
	for _, s := range steps {
		got[s.Tags["step"]] = fmt.Sprint(s.Values[0][1:])
	}
	want := map[string]string{"1": "[500 500 1.47 true false]", "2": "[1000 972 120.45 false true]", "3": "[1000 970 118.2 false false]", "4": "[969 969 7.41 true false]"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	if s := query(t, srv.URL, srv.DB, `SELECT count(*) FROM crank_summary`); len(s) != 0 {
		t.Errorf("crank_summary points %+v: a capacity answer is not a run's summary", s)
	}
}
