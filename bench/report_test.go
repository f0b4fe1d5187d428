package main

import (
	"strings"
	"testing"
	"time"
)

func testReport() *report {
	rows := []row{
		{Subject: "ref", Mode: "unpipelined", Reference: "ref"},
		{Subject: "sub", Mode: "unpipelined", Reference: "ref", Target: 0.6},
		{Subject: "gone", Mode: "pipelined 16", Reference: "ref", Skipped: "n/a: gone cannot pipeline"},
	}
	return &report{
		Date:    time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC),
		Elapsed: 312 * time.Second,
		Config:  config{rounds: 3, seconds: 3, connections: 64, pipeline: 16},
		Machine: machine{CPUModel: "AMD EPYC", Cores: 2, Kernel: "6.18.44", OS: "linux", Arch: "amd64"},
		Tools:   []string{"Go 1.26.8", "nginx/1.22.1"}, LoadBefore: "4.73 5.60 5.65", LoadAfter: "5.00 5.10 5.20",
		Comparisons: []comparison{{Title: "Subjects", Side: sideServer, About: "About.", Rows: rows,
			Samples: threeRounds(), Commands: []string{"taskset -c 1 wrk -c 64 URL"}, Notes: []string{"a note"},
			NginxConf: "worker_processes 1;\n"}},
		Agent: &agentSection{Command: "bin/crank-agent --url U", Cases: []agentCase{
			{Job: "sleep 60", Interval: time.Second, Window: 10 * time.Second, Ticks: 3, SchedNs: 25e6, Samples: 10},
			{Job: "sleep 60", Interval: 100 * time.Millisecond, Window: 10 * time.Second, Ticks: 20, SchedNs: 201e6, Samples: 100},
		}},
		Overhead: &overheadSection{Command: "crank --config x", Runs: []overheadRun{
			{Run: 0, Warm: true, FirstRequest: 1700 * time.Millisecond, Exit: 3 * time.Second},
			{Run: 1, Reused: true, FirstRequest: 1200 * time.Millisecond, Exit: 2500 * time.Millisecond, Requests: 9,
				Events: []event{{"upload", 190 * time.Millisecond}, {"app start", 680 * time.Millisecond},
					{"app ready", 1180 * time.Millisecond}, {"load start", 1190 * time.Millisecond}, {"load done", 2440 * time.Millisecond}}},
			{Run: 2, Reused: true, FirstRequest: 800 * time.Millisecond, Exit: 2 * time.Second, Requests: 9},
		}},
		Notes: "## Analysis\n\nNotes.\n",
	}
}

func TestRenderReport(t *testing.T) {
	doc := renderReport(testReport())
	for _, want := range []string{
		"# Performance\n",
		"on 2026-11-22 07:40 UTC; the run took 5m12s.",
		"| CPU | AMD EPYC, 2 cores |",
		"| kernel | linux/amd64 6.18.44 |",
		"| load average (1, 5, 15 min) | 4.73 5.60 5.65 before, 5.00 5.10 5.20 after |",
		"- Rounds of 3 s runs, after one unmeasured 1 s run per server path: 3, and more (up to 6)\n",
		"A row uses the runs in which neither CPU was\ndisturbed",
		"| sub / ref, unpipelined, server CPU per request | 0.60x | <= 0.60x | yes |",
		"| crank-agent sampling `sleep 60` every 1 s, its CPU | 0.30% of one core | < 1% of one core | yes |",
		"| crank start to the first request at the app, cached build | 1.00 s (median of 2) | < 2 s | yes |",
		"| sub | unpipelined | 3.00 | 0.60x | 0.60x | <= 0.60x | yes | 1.00 | 500 | 3 of 3 |",
		"| ref | unpipelined | 5.00 | 1.00x | 1.00x | - | - | 1.00 | 500 | 3 of 3 |",
		"| gone | pipelined 16 | n/a: gone cannot pipeline | | | - | - | | | 0 |",
		"| 3 | sub | unpipelined | 10 | 99.00 | 0.00 | 4%, 7% | 3 responses were not 2xx or 3xx |",
		"taskset -c 1 wrk -c 64 URL\n",
		"- a note\n",
		"```nginx\nworker_processes 1;\n```\n",
		"| job | interval | window | agent CPU, % of one core |",
		"| sleep 60 | 1s | 10.0 s | 0.30% | 0.250% | 10 | < 1% | yes |",
		"| sleep 60 | 100ms | 10.0 s | 2.00% | 2.010% | 100 | - | - |",
		"| 0 (warm-up) | rebuilt |  |  |  |  | **1.700** |  | 3.000 |  |",
		"| 1 | reused | 0.190 | 0.680 | 1.180 | 1.190 | **1.200** | 2.440 | 2.500 |  |",
		"Median time to the first request of the counted runs: **1.00 s**.",
		"## Analysis\n\nNotes.\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(doc)
	}
}

func TestRenderSkipped(t *testing.T) {
	r := testReport()
	r.Agent = &agentSection{Skipped: "skipped: crank-agent: not done within 15s"}
	r.Overhead = &overheadSection{Skipped: "skipped: crank not built"}
	r.Warning = "This run hit the bench's time limit."
	r.Comparisons[0].Rows[1].Skipped = "skipped: wrk not installed"
	r.Comparisons = append(r.Comparisons, comparison{Title: "No reference", Side: sideClient,
		Rows:    []row{{Subject: "sub", Mode: "unpipelined", Reference: "absent", Target: 1}},
		Samples: threeRounds()})
	doc := renderReport(r)
	for _, want := range []string{
		"\n**This run hit the bench's time limit.**\n",
		"| sub / absent, unpipelined, client CPU per request | n/a: no figure for absent | <= 1.00x | - |",
		"| sub | unpipelined | 1.00 | n/a | n/a | <= 1.00x | - | 3.00 | 500 | 3, disturbed incl. |",
		"| sub / ref, unpipelined, server CPU per request | skipped: wrk not installed | <= 0.60x | - |",
		"| crank-agent sampling a job every 1 s, its CPU | skipped: crank-agent: not done within 15s | < 1% of one core | - |",
		"| crank start to the first request at the app, cached build | skipped: crank not built | < 2 s | - |",
		"| sub | unpipelined | skipped: wrk not installed | | | <= 0.60x | - | | | 0 |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestOverheadCounted(t *testing.T) {
	o := testReport().Overhead
	o.Runs = append(o.Runs, overheadRun{Run: 3, Reused: false, FirstRequest: 9 * time.Second},
		overheadRun{Run: 4, Reused: true, FirstRequest: time.Second, Err: "crank: exit status 1"})
	if n := len(o.Counted()); n != 2 {
		t.Errorf("%d counted runs, want 2 (reused, no error, not the warm-up)", n)
	}
	if got := o.MedianFirst(); got != 1.0 {
		t.Errorf("median first request = %v, want 1.0", got)
	}
}
