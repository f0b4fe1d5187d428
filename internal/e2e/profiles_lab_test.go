package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// quickLoad keeps a lab run short and its load light enough for a 2-core machine that hosts
// every "machine" of the lab.
var quickLoad = []string{"--variable", "duration=2", "--variable", "warmup=0", "--variable", "threads=1", "--variable", "connections=32"}

// TestLabX64Plaintext: the plaintext scenario with the shipped lab-x64 profile, unchanged, on a
// lab with the profile's addresses: the application agent on 10.10.0.11, the load agent on
// 10.10.0.13, crank on a fourth machine. The app listens on the lab address (serverAddress), and
// every runtime counter is read from it; with metrics off, crank says why they are missing.
func TestLabX64Plaintext(t *testing.T) {
	const ctl, app, load = "10.10.0.100", "10.10.0.11", "10.10.0.13"
	lab := newHostLab(t, ctl, app, load)
	lab.agent(t, app)
	lab.agent(t, load)
	args := append([]string{"--no-probe", "--config", "scenarios/plaintext.yml", "--config", "profiles/lab-x64.yml", "--profile", "lab-x64", "--scenario", "plaintext"}, quickLoad...)

	out := filepath.Join(t.TempDir(), "out.json")
	r := lab.crank(t, ctl, 4*time.Minute, append(args, "--json", out)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	jobs := readJobs(t, out)
	a, l := jobs["application"], jobs["load"]
	if eps, _ := a.Environment["endpoints"].([]any); len(eps) != 1 || eps[0] != "http://"+app+":5010" {
		t.Errorf("application endpoints %v, want the agent on %s", a.Environment["endpoints"], app)
	}
	if rps := l.Results["wrk/rps/mean"]; rps <= 0 {
		t.Errorf("load RPS %v", rps)
	}
	if cpu := a.Results["benchmarks/cpu"]; cpu <= 0 {
		t.Errorf("application CPU %v", cpu)
	}
	for _, c := range measure.DefaultCounters() {
		if strings.HasPrefix(c.Metric, "dotnet_") || strings.HasPrefix(c.Metric, "process_runtime_dotnet_") ||
			c.Measurement == measure.GCPauseP99 || c.Measurement == measure.DBQueries {
			continue // .NET's counters, a quantile of GC pauses a 2 s run may not have had, and queries plaintext does not make
		}
		if _, ok := a.Results[c.Measurement]; !ok {
			t.Errorf("no %s in the application's results (metrics on %s)", c.Measurement, app)
		}
	}
	if strings.Contains(r.stderr, "not measured") {
		t.Errorf("crank says counters are missing:\n%s", r.stderr)
	}

	r = lab.crank(t, ctl, 4*time.Minute, append(args, "--variable", "metricsPort=0")...)
	if r.code != 0 {
		t.Fatalf("metrics off: exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "crank's output with metrics off", r.stderr, "[application] runtime counters not measured on http://"+app+":5010: metrics off")
}

// TestTechEmpowerFortunes: the fortunes scenario with the shipped techempower profile, unchanged,
// on a lab with its addresses: PostgreSQL on the database machine (10.0.0.2, as the postgres
// user), the app on 10.0.0.1 querying it, wrk on 10.0.0.3, crank on a fourth machine and InfluxDB
// on a fifth. The results hold RPS, CPU, the app's runtime counters and its database queries, and
// reach InfluxDB.
func TestTechEmpowerFortunes(t *testing.T) {
	const ctl, app, db, load, influxHost = "10.0.0.100", "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"
	needTool(t, "wrk")
	if _, err := exec.LookPath("initdb"); err != nil {
		testutil.Missing(t, "PostgreSQL's initdb on PATH: make test-deps installs it")
	}
	lab := newHostLab(t, ctl, app, db, load, influxHost)
	influxURL := lab.influxd(t, influxHost, ctl)
	// The agents' folders are under the test's temporary folder: PostgreSQL's user must search it.
	if err := os.Chmod(filepath.Dir(t.TempDir()), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{app, db, load} {
		lab.agent(t, a)
	}
	out := filepath.Join(t.TempDir(), "out.json")
	args := append([]string{"--no-probe", "--config", "scenarios/fortunes.yml", "--config", "profiles/techempower.yml", "--profile", "techempower",
		"--scenario", "fortunes", "--json", out, "--variable", "dbMaxConnections=100",
		"--influx-url", influxURL, "--influx-bucket", "crank/autogen"}, quickLoad...)
	r := lab.crank(t, ctl, 4*time.Minute, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	jobs := readJobs(t, out)
	a, l, d := jobs["application"], jobs["load"], jobs["db"]
	if rps := l.Results["wrk/rps/mean"]; rps <= 0 || l.Results["wrk/requests/badresponses"] != 0 {
		t.Errorf("load: RPS %v, bad responses %v", rps, l.Results["wrk/requests/badresponses"])
	}
	for name, j := range map[string]jobResult{"application": a, "db": d} {
		if cpu := j.Results["benchmarks/cpu"]; cpu <= 0 {
			t.Errorf("%s CPU %v", name, cpu)
		}
	}
	if q := a.Results[measure.DBQueries]; q <= 0 {
		t.Errorf("database queries %v/s; application results %v", q, a.Results)
	}
	if _, ok := a.Results[measure.LockContention]; !ok {
		t.Errorf("no %s: %v", measure.LockContention, a.Results)
	}
	q, err := lab.run(ctl, "curl", "-sf", "-G", influxURL+"/query", "--data-urlencode", "db=crank",
		"--data-urlencode", `q=SELECT "`+measure.DBQueries+`" FROM "`+influx.MeasurementSummary+`"`)
	if err != nil || !strings.Contains(q, `"values"`) {
		t.Errorf("InfluxDB on %s has no %s summary: %v\n%s", influxHost, measure.DBQueries, err, q)
	}
	t.Logf("fortunes across machines: %.0f RPS, %.0f queries/s", l.Results["wrk/rps/mean"], a.Results[measure.DBQueries])
}

// TestAmpere80Plaintext: the plaintext scenario with the shipped ampere-80 profile on a lab with
// its addresses: the arm64 agent (under qemu-aarch64-static) on 10.20.0.10 builds and runs the
// app for arm64, the two x64 load agents on 10.20.0.21 and .22 load it at once, crank on a fourth
// machine. Without binfmt_misc for arm64, the app's executable is run through qemu (one override).
func TestAmpere80Plaintext(t *testing.T) {
	const ctl, app, load1, load2 = "10.20.0.100", "10.20.0.10", "10.20.0.21", "10.20.0.22"
	needTool(t, "wrk")
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		testutil.Missing(t, "qemu-aarch64-static (apt-get install qemu-user-static): the arm64 agent cannot run here")
	}
	lab := newHostLab(t, ctl, app, load1, load2)
	armAgent := buildArm64Agent(t)
	ap := runAgentBinary(t, append(in(lab.hosts[app]), qemu), armAgent, "http://"+app+":5010", "--token", testToken)
	ap.waitLogged(t, "agent listening", 60*time.Second)
	lab.agent(t, load1)
	lab.agent(t, load2)
	out := filepath.Join(t.TempDir(), "out.json")
	args := append([]string{"--no-probe", "--config", "scenarios/plaintext.yml", "--config", "profiles/ampere-80.yml", "--profile", "ampere-80",
		"--scenario", "plaintext", "--json", out}, quickLoad...)
	if !binfmtRunsArm64() {
		args = append(args, "--application.executable", qemu, "--application.arguments",
			"./bin/plaintext --address "+app+" --port 5000 --metrics-port 5001")
	}
	r := lab.crank(t, ctl, 6*time.Minute, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	jobs := readJobs(t, out)
	a, l := jobs["application"], jobs["load"]
	if eps, _ := l.Environment["endpoints"].([]any); len(eps) != 2 {
		t.Errorf("load endpoints %v, want both load machines", l.Environment["endpoints"])
	}
	if arch := a.Environment["arch"]; arch != "arm64" {
		t.Errorf("application ran on %v, want arm64", arch)
	}
	if rps := l.Results["wrk/rps/mean"]; rps <= 0 {
		t.Errorf("load RPS %v", rps)
	}
	if cpu := a.Results["benchmarks/cpu"]; cpu <= 0 {
		t.Errorf("application CPU %v", cpu)
	}
	if _, ok := a.Results[measure.LockContention]; !ok {
		t.Errorf("no %s: %v", measure.LockContention, a.Results)
	}
}

// TestLocalProfileOnLabHost: the local profile is one machine by definition (crank's embedded
// agent on loopback): here a lab machine of its own, with nothing else on it.
func TestLocalProfileOnLabHost(t *testing.T) {
	const host = "10.30.0.1"
	needTool(t, "wrk")
	lab := newHostLab(t, host)
	out := filepath.Join(t.TempDir(), "out.json")
	r := lab.crank(t, host, 4*time.Minute, append([]string{"--no-probe", "--config", "scenarios/plaintext.yml", "--profile", "local",
		"--scenario", "plaintext", "--json", out}, quickLoad...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	jobs := readJobs(t, out)
	a, l := jobs["application"], jobs["load"]
	if rps, cpu := l.Results["wrk/rps/mean"], a.Results["benchmarks/cpu"]; rps <= 0 || cpu <= 0 {
		t.Errorf("load RPS %v, application CPU %v", rps, cpu)
	}
	if _, ok := a.Results[measure.LockContention]; !ok {
		t.Errorf("no %s: %v", measure.LockContention, a.Results)
	}
}
