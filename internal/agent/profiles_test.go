package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/profiler"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"github.com/google/pprof/profile"
)

// spinJob builds the profiler's test program (it spins in main.spin and serves /debug/pprof/) as
// a process job with collect and goProfiles.
func spinJob(t *testing.T) api.Job {
	t.Helper()
	if err := profiler.Probe(context.Background()); err != nil {
		testutil.Missing(t, "%v", err)
	}
	bin := filepath.Join(t.TempDir(), "spin")
	if out, err := exec.Command("go", "build", "-o", bin, "./profiler/testdata/spin").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	port := testutil.FreePorts(t, 1)[0]
	return api.Job{Service: "application", Name: "spin", Executable: bin, Arguments: fmt.Sprintf("127.0.0.1:%d", port),
		Port: port, Collect: true, CollectArguments: "frequency=199", GoProfiles: true}
}

// perfChildren are this process's children named perf.
func perfChildren() []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil || !strings.Contains(string(b), "(perf)") {
			continue
		}
		f := strings.Fields(string(b)[strings.LastIndex(string(b), ")")+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			out = append(out, pid)
		}
	}
	return out
}

func TestProfilesProcessJob(t *testing.T) {
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	id := ta.submit(t, spinJob(t))
	ta.waitState(t, id, api.StateRunning)
	if err := ta.c.StartProfiles(ctx, id); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	list, err := ta.c.StopProfiles(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if left := perfChildren(); len(left) > 0 {
		t.Errorf("perf left running: %v", left)
	}
	got := map[string]bool{}
	for _, p := range list {
		if p.Error != "" {
			t.Errorf("%s: %s", p.Name, p.Error)
			continue
		}
		b, err := ta.c.Profile(ctx, id, p.Name)
		if err != nil {
			t.Fatal(err)
		}
		pp, err := profile.ParseData(b)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		for _, f := range profiles.Top(pp, 20) {
			got[p.Name+" "+f.Name] = true
		}
	}
	for _, want := range []string{"perf-cpu main.spin", "go-cpu main.spin"} {
		if !got[want] {
			t.Errorf("no %s among the top functions: %v", want, got)
		}
	}
	// a server kept across iterations gets a window each
	if err := ta.c.StartProfiles(ctx, id); err != nil {
		t.Fatalf("a second window: %v", err)
	}
	if err := ta.c.StartProfiles(ctx, id); err == nil {
		t.Error("a window opened over an open one")
	}
	if _, err := ta.c.StopProfiles(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := ta.c.Profile(ctx, id, "../../etc/passwd"); err == nil {
		t.Error("a profile name that is a path was answered")
	}
}

func TestProfilesWindowLeftOpen(t *testing.T) {
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	id := ta.submit(t, spinJob(t))
	ta.waitState(t, id, api.StateRunning)
	if err := ta.c.StartProfiles(ctx, id); err != nil {
		t.Fatal(err)
	}
	if len(perfChildren()) == 0 {
		t.Fatal("perf is not running")
	}
	if err := ta.c.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(perfChildren()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := perfChildren(); len(left) > 0 {
		t.Errorf("perf left running after the job was deleted: %v", left)
	}
	if m, _ := filepath.Glob(filepath.Join(ta.Dir(), "*"+perfSuffix)); len(m) > 0 {
		t.Errorf("perf's folders left: %v", m)
	}
}

func TestProfilesRefused(t *testing.T) {
	ta := newTestAgent(t, Options{})
	_, err := ta.c.Submit(context.Background(), api.Job{Name: "x", Executable: "sh", Collect: true, CollectArguments: "BufferSizeMB=10"})
	if err == nil || !strings.Contains(err.Error(), "BufferSizeMB") {
		t.Errorf("collectArguments of PerfCollect: %v", err)
	}
	_, err = ta.c.Submit(context.Background(), api.Job{Name: "x", Executable: "sh", GoProfiles: true})
	if err == nil || !strings.Contains(err.Error(), "goProfiles") {
		t.Errorf("goProfiles without a port: %v", err)
	}
}
