package influxtest

import (
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Run describes a synthetic run shaped like a real plaintext run: an application sampled every
// second for Seconds (default 20: CPU, memory, lock contention, exceptions, requests per second;
// the first 5 s warm-up) and a wrk load with its summary; for tests of publishing and dashboards.
type Run struct {
	Start      time.Time
	Session    string
	Arch       string
	Partitions string
	RPS        float64
	Seconds    int
	// NoCounters leaves out the application's counters (lock contention, exceptions, requests
	// per second): an app without a metrics endpoint.
	NoCounters bool
}

// Result is the run's result, as crank would publish it.
func (r Run) Result() *results.Result {
	if r.Seconds == 0 {
		r.Seconds = 20
	}
	env := map[string]any{"os": "linux", "arch": r.Arch, "cores": 4, "cpuModel": "Test CPU",
		"hostname": "bench-" + r.Arch, "endpoints": []string{"http://127.0.0.1:5000"}}
	var app, load []api.Measurement
	for i := range r.Seconds {
		at := r.Start.Add(time.Duration(i+1) * time.Second)
		warm := i < 5
		v := float64(i % 7)
		app = append(app,
			api.Measurement{Name: measure.CPU, Timestamp: at, Value: 90 + v, Warmup: warm},
			api.Measurement{Name: measure.WorkingSet, Timestamp: at, Value: 40 + v, Warmup: warm},
			api.Measurement{Name: measure.CPUSteal, Timestamp: at, Value: v / 10, Warmup: warm})
		if r.NoCounters {
			continue
		}
		app = append(app,
			api.Measurement{Name: measure.LockContention, Timestamp: at, Value: 1 + v/10, Warmup: warm},
			api.Measurement{Name: measure.ExceptionCount, Timestamp: at, Value: v / 100, Warmup: warm},
			api.Measurement{Name: measure.GCPause, Timestamp: at, Value: 2 + v/10, Warmup: warm},
			api.Measurement{Name: measure.RequestsPerSecond, Timestamp: at, Value: r.RPS + v*100, Warmup: warm})
		load = append(load, api.Measurement{Name: measure.CPU, Timestamp: at.Add(time.Millisecond), Value: 50 + v, Warmup: warm})
	}
	appResults := map[string]float64{measure.CPU: 96, measure.WorkingSet: 46, measure.CPUSteal: 0.3,
		measure.LockContention: 1.3, measure.ExceptionCount: 0.03, measure.GCPause: 2.3, measure.StartTime: 120}
	if r.NoCounters {
		delete(appResults, measure.LockContention)
		delete(appResults, measure.ExceptionCount)
		delete(appResults, measure.GCPause)
	}
	return &results.Result{
		StartTime: r.Start, Scenario: "plaintext", Profiles: []string{"local"}, Session: r.Session,
		Description: "synthetic " + r.Arch,
		JobResults: results.JobResults{
			Properties: map[string]string{"partitions": r.Partitions},
			Jobs: map[string]*results.JobResult{
				"application": {
					Results:      appResults,
					Measurements: [][]api.Measurement{app},
					Environment:  env,
					Variables:    map[string]any{"partitions": r.Partitions, "serverPort": 5000},
				},
				"load": {
					Results: map[string]float64{measure.RPS: r.RPS, measure.WrkRPS: r.RPS, measure.Requests: r.RPS * 15,
						measure.LatencyMean: 1.5, measure.Latency50: 1.2, measure.Latency99: 4.75, measure.LatencyMax: 20,
						measure.Errors: 0, measure.BadResponses: 0, measure.CPU: 56},
					Measurements: [][]api.Measurement{load},
					Environment:  env,
				},
			},
		},
	}
}
