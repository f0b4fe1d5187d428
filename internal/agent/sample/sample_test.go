package sample

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

func TestCPUDeltaKeepsVanishedProcessTime(t *testing.T) {
	prev := map[procKey]float64{{1, 10}: 2.0, {2, 20}: 1.0, {3, 30}: 0.5}
	cur := map[procKey]float64{
		{1, 10}: 2.5, // +0.5
		{3, 30}: 0.5, // idle
		{4, 40}: 0.2, // new: all of it
		{2, 99}: 0.1, // pid 2 reused by a new process: all of it
	}
	// process {2,20} vanished: nothing more is counted for it.
	if got := cpuDelta(prev, cur); got < 0.7999 || got > 0.8001 {
		t.Errorf("cpuDelta = %v, want 0.8", got)
	}
}

func TestSampleTree(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	s, err := New(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	// Each sample's CPU is the tree's since the one before. Right after the start it includes the
	// forks and execs (one 10 ms tick in a 20 ms interval reads 50 %: a fresh clone on a busy
	// machine failed so); once the sleeps sleep it falls to nothing, and stays there. A sampler
	// that counted the tree's whole CPU time, or another process's, would not fall.
	var st Stats
	testutil.Within(5*time.Second, func() bool {
		if st, err = s.Sample(); err != nil {
			t.Fatal(err)
		}
		return st.Processes == 3 && st.CPURaw <= 50
	})
	if st.Processes != 3 {
		t.Fatalf("processes = %d, want 3 (sh and two sleeps)", st.Processes)
	}
	if st.WorkingSetMB <= 0 || st.WorkingSetMB > 100 || st.PrivateMB <= 0 || st.PrivateMB > st.WorkingSetMB {
		t.Errorf("memory: working set %.2f MB, private %.2f MB", st.WorkingSetMB, st.PrivateMB)
	}
	if st.CPURaw < 0 || st.CPURaw > 50 || st.CPU > st.CPURaw || st.CPUGlobal < 0 || st.CPUGlobal > 100 {
		t.Errorf("cpu of sleeping tree: %+v", st)
	}
	if _, err := New(1 << 30); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("New on a missing pid: %v, want its /proc entry not found", err)
	}
}

func TestBusiestThread(t *testing.T) {
	prev := threadTimes{{10, 1}: 1.0, {11, 1}: 2.0, {12, 1}: 0.5}
	cur := threadTimes{
		{10, 1}: 1.9, // +0.9 in 1 s: 90 %
		{11, 1}: 2.1, // +0.1
		{13, 5}: 0.3, // new: all of it
		{12, 9}: 0.4, // tid 12 reused: all of it
	}
	if got, ok := busiestThread(prev, cur, 1); !ok || got < 89.999 || got > 90.001 {
		t.Errorf("busiestThread = %v, %v; want 90, true", got, ok)
	}
	if _, ok := busiestThread(nil, cur, 1); ok {
		t.Error("no earlier read: known")
	}
	if _, ok := busiestThread(prev, threadTimes{}, 1); ok {
		t.Error("no thread: known")
	}
}

// TestSampleBusiestThread: a single-threaded process that spins has its one thread as busy as the
// whole tree, and a sleeping one has none.
func TestSampleBusiestThread(t *testing.T) {
	spin := exec.Command("sha256sum", "/dev/zero")
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = spin.Process.Kill()
		_ = spin.Wait()
	}()
	s, err := New(spin.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	// The sample covers at least 30 ticks of the spinner's CPU, whatever else the machine runs.
	begin, err := readStat(spin.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Within(10*time.Second, func() bool {
		now, err := readStat(spin.Process.Pid)
		return err == nil && now.cpuSeconds-begin.cpuSeconds >= 0.3
	})
	wall := time.Since(started).Seconds() // at most the sample's interval
	st, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if !st.HasThreads || st.CPURaw <= 0 {
		t.Fatalf("spinning process: %+v", st)
	}
	// Both count whole 10 ms ticks of the same one thread, but the process and its thread are read
	// a moment apart at each end: a tick may fall between the two reads at either end.
	if d, most := st.BusiestThread-st.CPURaw, 2*0.01/wall*100; d < -most || d > most {
		t.Errorf("busiest thread %.1f %% of a core, the tree %.1f %%: one thread is the tree", st.BusiestThread, st.CPURaw)
	}
}
