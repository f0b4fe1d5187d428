//go:build measure

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestConformanceMatrix runs the verdict conformance matrix (conformance_test.go) cell by cell,
// quiet and then beside one busy core (sha256sum /dev/zero, started and stopped here), each cell
// one short crank run; a verdict outside the cell's right-or-cannot-tell set fails with the run's
// whole diagnosis. machine-busy is "cannot tell" beside the busy core, and on the quiet pass when
// the test's own measure saw other work take busyOutside of the machine. -update records what
// was seen in testdata/conformance.json (the cells run; the others are kept).
//
//	go test -tags measure ./internal/e2e -run 'TestConformanceMatrix/quiet' -v
func TestConformanceMatrix(t *testing.T) {
	needTool(t, "wrk")
	needTool(t, "h2load")
	needTool(t, "sha256sum")
	rec := readConformance(t)
	for _, cond := range []string{quiet, busy} {
		t.Run(cond, func(t *testing.T) {
			if cond == busy {
				busyCore(t, 20*time.Minute)
			}
			rec.Load[cond+" before"] = loadAverage(t)
			for _, s := range confServers {
				for _, tool := range confTools {
					t.Run(s.name+"/"+tool.name, func(t *testing.T) { runCell(t, &rec, cond, s, tool) })
				}
			}
			rec.Load[cond+" after"] = loadAverage(t)
		})
	}
	if *update {
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(confPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runCell runs one cell and fails unless its verdict is right or says it cannot tell.
func runCell(t *testing.T, rec *conformance, cond string, s confServer, tool confTool) {
	if s.burn {
		busyCore(t, 2*time.Minute)
	}
	out := filepath.Join(t.TempDir(), "out.json")
	var r runResult
	outside := outsideShare(t, func() { r = crank(t, 3*time.Minute, append(confArgs(t, s, tool), "--json", out)...) })
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	res, err := results.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, r.stderr)
	}
	v, ok := res.JobResults.Verdict()
	if !ok {
		t.Fatalf("no verdict\nstdout:\n%s", r.stdout)
	}
	rec.record(s.name, tool.name, cond, v.Kind, outside)
	diag := r.stdout
	if i := strings.Index(diag, "Diagnosis"); i >= 0 {
		diag = diag[i:]
	}
	accepts := s.accepts(tool)
	switch {
	case slices.Contains(accepts, v.Kind):
		t.Logf("%s (outside the run %.0f %%): %s", v.Kind, 100*outside, v.Message)
	case v.Kind == diagnose.MachineBusy && (cond == busy || outside >= busyOutside):
		t.Logf("machine-busy: cannot tell (outside the run %.0f %%)", 100*outside)
	default:
		t.Errorf("%s x %s, %s: verdict %s is wrong; right or cannot tell: %s (outside the run %.0f %%)\n%s\nthe load's latency: %s",
			s.name, tool.name, cond, v.Kind, strings.Join(accepts, ", "), 100*outside, diag, latencies(res))
	}
}

// latencies is every load job's latency figures (ms), for a wrong verdict's message: the tail
// rules read them and "rests on" names only the figures of the verdict given.
func latencies(res *results.Result) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(res.JobResults.Jobs)) {
		r := res.JobResults.Jobs[name].Results
		for _, m := range []string{measure.Latency50, measure.Latency99, measure.LatencyMean, measure.LatencyMax} {
			if v, ok := r[m]; ok {
				fmt.Fprintf(&b, "%s %s %.3g; ", name, m, v)
			}
		}
	}
	return b.String()
}

// record keeps what a cell saw in a condition.
func (c *conformance) record(server, tool, cond, kind string, outside float64) {
	i := slices.IndexFunc(c.Cells, func(x confCell) bool { return x.Server == server && x.Tool == tool })
	if i < 0 {
		c.Cells = append(c.Cells, confCell{Server: server, Tool: tool, Seen: map[string]string{}, Outside: map[string]float64{}})
		i = len(c.Cells) - 1
	}
	c.Cells[i].Seen[cond] = kind
	c.Cells[i].Outside[cond] = float64(int(outside*100+0.5)) / 100
}

// confArgs are crank's arguments for the cell: diagserver in the row's mode on free ports, the
// column's load job with the row's connections (and rate), 1 s of warm-up.
func confArgs(t *testing.T, s confServer, tool confTool) []string {
	t.Helper()
	if s.nginx > 0 {
		return nginxArgs(t, s, tool)
	}
	cfg := writeFile(t, t.TempDir(), "conform.yml", `
imports:`+confImports()+`
`+diagJob(t)+`scenarios:
  conform:
    application:
      job: diag
    load:
      job: wrk
`)
	p := freePorts(t, 2)
	metricsPort := "0"
	if s.metrics {
		metricsPort = strconv.Itoa(p[1])
	}
	args := []string{"--config", cfg, "--scenario", "conform", "--variable", "serverPort=" + strconv.Itoa(p[0]),
		"--variable", "metricsPort=" + metricsPort, "--variable", "mode=" + s.mode, "--variable", "work=" + s.work}
	return append(args, loadArgs(s, tool)...)
}

// confImports is the configuration's imports: the load tools' jobs, one per line.
func confImports() string {
	imports := ""
	for _, j := range []string{"wrk", "bombardier", "builtin", "h2load"} {
		imports += "\n  - " + filepath.Join(testEnv.root, "scenarios/jobs", j+".yml")
	}
	return imports
}

// loadArgs are the cell's run length and the column's load: its job, the row's connections
// (and rate), 1 s of warm-up.
func loadArgs(s confServer, tool confTool) []string {
	args := []string{"--variable", "duration=" + strconv.Itoa(s.duration), "--variable", "warmup=1",
		"--load.job", tool.job, "--load.variables.connections", strconv.Itoa(s.connections)}
	if tool.rate {
		args = append(args, "--load.variables.rate", strconv.Itoa(s.rate))
	}
	if tool.job == "h2load" {
		args = append(args, "--load.variables.streams", "1")
	}
	return args
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute averages.
func loadAverage(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}
