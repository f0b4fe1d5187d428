package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
)

// The verdict against servers built to a known truth (testdata/diagserver) and the shipped apps:
// verdicts_test.go and verdicts_measure_test.go run the ten cases of issue 24. On a busy machine (other work took at least a
// fifth of it while the agent sampled) the right verdict is machine-busy; a test accepts it in
// place of its own only when the test's own measure of the work outside the run (outsideShare)
// says the machine was busy too, so a diagnosis that cried machine-busy on a quiet machine fails.

var diagServer struct {
	once sync.Once
	dir  string
	err  error
}

// diagServerDir builds testdata/diagserver once into a folder of its own (uploaded as the job's
// source), inside the binaries' folder so that TestMain's clean-up removes it.
func diagServerDir(t *testing.T) string {
	t.Helper()
	diagServer.once.Do(func() {
		diagServer.dir, diagServer.err = os.MkdirTemp(testEnv.bins, "diagserver-")
		if diagServer.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(diagServer.dir, "diagserver"), "./internal/e2e/testdata/diagserver")
		cmd.Dir = testEnv.root
		if out, err := cmd.CombinedOutput(); err != nil {
			diagServer.err = err
			t.Logf("%s", out)
		}
	})
	if diagServer.err != nil {
		t.Fatalf("building diagserver: %v", diagServer.err)
	}
	return diagServer.dir
}

// diagArgs are crank's arguments for the diag scenario: diagserver in mode with work per request,
// on free ports (its runtime metrics served when metrics is true), under wrk unless args swap the
// load job; 3 measured seconds after 1 of warm-up.
func diagArgs(t *testing.T, mode, work string, metrics bool, args ...string) []string {
	t.Helper()
	cfg := writeFile(t, t.TempDir(), "diag.yml", `
imports:
  - `+filepath.Join(testEnv.root, "scenarios/jobs/wrk.yml")+`
  - `+filepath.Join(testEnv.root, "scenarios/jobs/bombardier.yml")+`
  - `+filepath.Join(testEnv.root, "scenarios/jobs/builtin.yml")+`
`+diagJob(t)+`scenarios:
  diag:
    application:
      job: diag
    load:
      job: wrk
`)
	p := freePorts(t, 2)
	metricsPort := "0"
	if metrics {
		metricsPort = strconv.Itoa(p[1])
	}
	return append([]string{"--config", cfg, "--scenario", "diag", "--variable", "serverPort=" + strconv.Itoa(p[0]),
		"--variable", "metricsPort=" + metricsPort, "--variable", "mode=" + mode, "--variable", "work=" + work,
		"--variable", "duration=3", "--variable", "warmup=1"}, args...)
}

// verdictRun is a finished run: its verdict from the JSON, the table, stderr and the share of the
// machine used outside the run while it ran (outsideShare).
type verdictRun struct {
	verdict results.Diagnostic
	diags   []results.Diagnostic
	stdout  string
	stderr  string
	outside float64
	probed  bool // the probe ran
}

// runVerdict runs crank with args, wants exit code, and reads the verdict. The table's verdict
// line must say what the JSON says, with the figures it rests on.
func runVerdict(t *testing.T, code int, args ...string) verdictRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	var r runResult
	outside := outsideShare(t, func() { r = crank(t, 2*time.Minute, append(args, "--json", out)...) })
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	res, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := res.JobResults.Verdict()
	if !ok {
		t.Fatalf("no verdict\nstdout:\n%s", r.stdout)
	}
	i := strings.Index(r.stdout, "Diagnosis")
	if i < 0 {
		t.Fatalf("no diagnosis in the table:\n%s", r.stdout)
	}
	table := r.stdout[i:]
	t.Logf("outside the run (the test's own measure): %.0f %% of the machine\n%s", 100*outside, table)
	mustContain(t, "the table's diagnosis", table, "  verdict "+v.Kind+": "+v.Message+"\n", "    rests on: ")
	if strings.Count(table, "  verdict ") != 1 {
		t.Errorf("the table gives more than one verdict:\n%s", table)
	}
	return verdictRun{verdict: v, diags: res.JobResults.Diagnostics, stdout: r.stdout, stderr: r.stderr, outside: outside,
		probed: strings.Contains(r.stderr, "probe: a short run at twice the connections")}
}

// outsideShare runs f and returns the share of the machine's CPU used outside f's child processes
// meanwhile: the machine's busy time (/proc/stat) less the CPU time of the children f waited for
// (getrusage RUSAGE_CHILDREN: crank and every process under it), over the machine's time.
func outsideShare(t *testing.T, f func()) float64 {
	t.Helper()
	busy0, all0 := procStat(t)
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru0)
	f()
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru1)
	busy1, all1 := procStat(t)
	cpu := func(ru syscall.Rusage) float64 {
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	const hz = 100 // USER_HZ, the unit of /proc/stat
	children := cpu(ru1) - cpu(ru0)
	if all1 <= all0 {
		return 0
	}
	return max(0, ((busy1-busy0)/hz-children)/((all1-all0)/hz))
}

// procStat returns the machine's busy and total CPU time from /proc/stat, in USER_HZ ticks.
func procStat(t *testing.T) (busy, all float64) {
	t.Helper()
	f, err := os.Open("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	fields := strings.Fields(sc.Text()) // cpu user nice system idle iowait irq softirq steal ...
	for i, s := range fields[1:] {
		v, _ := strconv.ParseFloat(s, 64)
		if i >= 8 { // guest and guest_nice are inside user and nice already
			break
		}
		all += v
		if i != 3 && i != 4 {
			busy += v
		}
	}
	return busy, all
}

// diagJob is the job "diag": the constructed server (testdata/diagserver), its mode and work per
// request as variables.
func diagJob(t *testing.T) string {
	return `jobs:
  diag:
    source:
      localFolder: ` + diagServerDir(t) + `
    executable: ./diagserver
    arguments: --port {{serverPort}} --metrics-port {{metricsPort}} --mode {{mode}} --work {{work}}
    port: '{{serverPort}}'
    metricsPort: '{{metricsPort}}'
    readyStateText: Application started.
    variables: {serverPort: 5000, metricsPort: 0, mode: spin, work: 1ms}
`
}
