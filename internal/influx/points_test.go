package influx

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/results"
)

var t0 = time.Date(2024, 5, 1, 2, 0, 0, 0, time.UTC)

func smallResult() *results.Result {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	return &results.Result{
		StartTime: t0, Scenario: "plaintext", Profiles: []string{"local", "arm"}, Session: "s1",
		Description: "nightly \"main\"",
		JobResults: results.JobResults{
			Properties:  map[string]string{"partitions": "4", "scenario": "ignored", "time": "x"},
			Diagnostics: []results.Diagnostic{{Kind: "client-bound", Message: "load CPU 99%"}},
			Jobs: map[string]*results.JobResult{
				"application": {
					Results: map[string]float64{"benchmarks/cpu": 87.5, "runtime-counter/lock-contention": 1.25},
					Measurements: [][]api.Measurement{{
						{Name: "benchmarks/cpu", Timestamp: at(0), Value: 10, Warmup: true},
						{Name: "benchmarks/cpu", Timestamp: at(1), Value: 80},
						{Name: "runtime-counter/lock-contention", Timestamp: at(1), Value: 1.5},
						{Name: "benchmarks/cpu", Timestamp: at(2), Value: 90},
						{Name: "benchmarks/cpu", Timestamp: at(3), Value: math.NaN()},
					}},
					Environment: map[string]any{"arch": "x64", "os": "linux", "cores": 4.0, "hostname": "h1"},
					Variables:   map[string]any{"partitions": 4.0, "path": "/plaintext"},
				},
				"load": {
					Results:     map[string]float64{"http/rps/mean": 1000, "http/latency/99": math.Inf(1)},
					Environment: map[string]any{"arch": "arm64", "os": "linux", "cores": 2, "hardware": "lab a"},
				},
			},
		},
	}
}

func TestPointsLineProtocol(t *testing.T) {
	tags := Tags{Branch: "main", Commit: "abc123", Variables: []string{"partitions"}}
	lines, err := Lines(Points(smallResult(), tags))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`crank_summary,arch=x64,branch=main,commit=abc123,cores=4,machine=h1,os=linux,partitions=4,profile=local+arm,scenario=plaintext,service=application,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x benchmarks/cpu=87.5,runtime-counter/lock-contention=1.25 1714528800000000000`,
		`crank_iteration,arch=x64,branch=main,commit=abc123,cores=4,iteration=1,machine=h1,os=linux,partitions=4,profile=local+arm,scenario=plaintext,service=application,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x benchmarks/cpu=87.5,runtime-counter/lock-contention=1.25 1714528800000000000`,
		`crank_timeline,arch=x64,branch=main,commit=abc123,cores=4,endpoint=0,machine=h1,os=linux,partitions=4,phase=warmup,profile=local+arm,scenario=plaintext,service=application,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x benchmarks/cpu=10,elapsed_s=0 1714528800000000000`,
		`crank_timeline,arch=x64,branch=main,commit=abc123,cores=4,endpoint=0,machine=h1,os=linux,partitions=4,phase=measured,profile=local+arm,scenario=plaintext,service=application,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x benchmarks/cpu=80,elapsed_s=1,runtime-counter/lock-contention=1.5 1714528801000000000`,
		`crank_timeline,arch=x64,branch=main,commit=abc123,cores=4,endpoint=0,machine=h1,os=linux,partitions=4,phase=measured,profile=local+arm,scenario=plaintext,service=application,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x benchmarks/cpu=90,elapsed_s=2 1714528802000000000`,
		`crank_summary,arch=arm64,branch=main,commit=abc123,cores=2,machine=lab\ a,os=linux,partitions=4,profile=local+arm,scenario=plaintext,service=load,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x http/rps/mean=1000 1714528800000000000`,
		`crank_iteration,arch=arm64,branch=main,commit=abc123,cores=2,iteration=1,machine=lab\ a,os=linux,partitions=4,profile=local+arm,scenario=plaintext,service=load,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x http/rps/mean=1000 1714528800000000000`,
		`crank_phase,branch=main,commit=abc123,partitions=4,phase=warmup,profile=local+arm,scenario=plaintext,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x end_ms=1714528801000i,text="warmup 1s" 1714528800000000000`,
		`crank_phase,branch=main,commit=abc123,partitions=4,phase=measured,profile=local+arm,scenario=plaintext,session=s1,variant=partitions\=4\,scenario\=ignored\,time\=x end_ms=1714528803000i,text="measured 2s" 1714528801000000000`,
		`crank_run,branch=main,commit=abc123,partitions=4,profile=local+arm,scenario=plaintext,variant=partitions\=4\,scenario\=ignored\,time\=x description="nightly \"main\"",diagnostics="client-bound",from_ms=1714528795000i,returnCode=0i,services=2i,session="s1",text="plaintext [local+arm] session s1: nightly \"main\"; load 1000 req/s; client-bound",to_ms=1714528808000i 1714528800000000000`,
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
