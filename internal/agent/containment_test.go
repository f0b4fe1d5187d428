package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

func needCgroups(t *testing.T) {
	t.Helper()
	if m := cgroup.Open(); !m.Available() {
		testutil.Missing(t, "job containment: %s", m.Describe())
	}
}

// daemonJob starts a job whose shell leaves a setsid daemon, double-forked (its parent subshell
// exits, so it is out of the job's process group and process tree), and returns its pid.
func daemonJob(t *testing.T, ta *testAgent, daemon string, env map[string]string) (string, int) {
	t.Helper()
	id := ta.submit(t, api.Job{Executable: "sh", Environment: env, ReadyStateText: "ready",
		Arguments: `-c '(setsid ` + daemon + ` & echo "daemon $! ready"); exec sleep 1000'`})
	ta.waitState(t, id, api.StateRunning)
	out := ta.waitOutput(t, id, "ready")
	f := strings.Fields(out[strings.Index(out, "daemon "):])
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatalf("daemon pid from %q: %v", out, err)
	}
	return id, pid
}

// A setsid daemon is in the job's control group: its CPU counts, and stop kills it. Counted is
// checked as more than 5 % of a core and at most one: the job's own process sleeps, so counted
// from the process tree the job would use ~0 %, and the daemon is one thread burning half a core,
// at most a whole one while it catches up after being descheduled. The daemon's ~50 % itself (12-80 %) is
// TestDaemonCPUShare (make measure).
func TestDaemonCountedAndKilledOnStop(t *testing.T) {
	t.Parallel()
	if mean := daemonCPU(t); mean <= 5 || mean > 100 {
		t.Errorf("job CPU %.1f%% of a core, want the daemon's counted (more than 5 %%, at most a core)", mean)
	}
}

// daemonCPU runs a job whose setsid daemon burns half a core, reads 5 CPU samples of the job, stops
// it, checks the daemon is killed, and returns the job's mean CPU after the first sample (% of a
// core).
func daemonCPU(t *testing.T) float64 {
	t.Helper()
	needCgroups(t)
	ta := newTestAgent(t, Options{Interval: 200 * time.Millisecond})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	id, pid := daemonJob(t, ta, strconv.Quote(exe), map[string]string{helperEnv: "burn"})
	ctx := context.Background()
	var cpu []float64
	for deadline := time.Now().Add(10 * time.Second); len(cpu) < 5 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ms, err := ta.c.Measurements(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		cpu = cpu[:0]
		for _, m := range ms.Measurements {
			if m.Name == measure.CPURaw {
				cpu = append(cpu, m.Value)
			}
		}
	}
	if len(cpu) < 5 {
		t.Fatalf("%d CPU samples in 10 s", len(cpu))
	}
	var sum float64
	for _, v := range cpu[1:] {
		sum += v
	}
	mean := sum / float64(len(cpu)-1)
	t.Logf("job CPU %.1f%% of a core (samples %v)", mean, cpu)
	if err := ta.c.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	return mean
}

func TestDaemonKilledOnLeaseExpiry(t *testing.T) {
	t.Parallel()
	needCgroups(t)
	ta := newTestAgent(t, Options{Lease: 500 * time.Millisecond})
	id, pid := daemonJob(t, ta, "sleep 1000", nil)
	// From here on nobody reads the job's status.
	waitGone(t, pid)
	waitNoFile(t, filepath.Join(ta.Dir(), id))
}

func TestDaemonKilledOnShutdown(t *testing.T) {
	t.Parallel()
	needCgroups(t)
	ta := newTestAgent(t, Options{})
	_, pid := daemonJob(t, ta, "sleep 1000", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ta.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

// A process job's memoryLimitInBytes and cpuLimitRatio are set on its control group, v2 or (on a
// hybrid machine) v1, or said not to be applied.
func TestProcessJobLimits(t *testing.T) {
	t.Parallel()
	needCgroups(t)
	ta := newTestAgent(t, Options{})
	id := ta.submit(t, api.Job{Executable: "sh", Arguments: `-c 'cat /proc/self/cgroup; echo limits ready; exec sleep 100'`,
		ReadyStateText: "limits ready", MemoryLimitInBytes: 64 << 20, CPULimitRatio: 0.5})
	st := ta.waitState(t, id, api.StateRunning)
	out := ta.waitOutput(t, id, "limits ready")
	read := func(parts ...string) string {
		b, err := os.ReadFile(filepath.Join(parts...))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	found := map[string]string{}
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || f[2] == "/" {
			continue
		}
		ctl := "," + f[1] + ","
		switch {
		case f[0] == "0":
			for _, root := range []string{cgroup.Root, cgroup.Root + "/unified"} {
				if v := read(root, f[2], "memory.max"); v != "" {
					found["memory"] = v
				}
				if v := read(root, f[2], "cpu.max"); v != "" {
					found["cpu"] = v
				}
			}
		case strings.Contains(ctl, ",memory,"):
			found["memory"] = read(cgroup.Root, "memory", f[2], "memory.limit_in_bytes")
		case strings.Contains(ctl, ",cpu,"):
			found["cpu"] = read(cgroup.Root, f[1], f[2], "cpu.cfs_quota_us")
		}
	}
	warned := strings.Join(st.Warnings, "\n")
	for c, want := range map[string][]string{"memory": {"67108864"}, "cpu": {"50000", "50000 100000"}} {
		if got, ok := found[c]; ok {
			if !slices.Contains(want, got) {
				t.Errorf("%s limit %q, want %v", c, got, want)
			}
		} else if !strings.Contains(warned, c+" not applied") {
			t.Errorf("no %s limit in the job's groups (%s) and no warning: %v", c, out, st.Warnings)
		}
	}
	t.Logf("limits %v, warnings %v", found, st.Warnings)
}
