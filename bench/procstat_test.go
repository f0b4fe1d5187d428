package main

import (
	"math"
	"os"
	"testing"
)

func TestParseStat(t *testing.T) {
	cases := []struct {
		name, line string
		want       procStat
	}{
		{"plain", "4242 (nginx) S 4241 4241 4241 0 -1 4194624 188 0 0 0 1234 567 0 0 20 0 1 0 9876 100 200\n",
			procStat{PID: 4242, PPID: 4241, Comm: "nginx", State: 'S', UTime: 1234, STime: 567}},
		{"comm with spaces and parentheses", "17 (my (odd) app) R 1 17 17 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 2 3",
			procStat{PID: 17, PPID: 1, Comm: "my (odd) app", State: 'R', UTime: 3, STime: 4}},
		{"zombie", "99 (wrk) Z 98 99 99 0 -1 0 0 0 0 0 250 180 0 0 20 0 2 0 1 0 0",
			procStat{PID: 99, PPID: 98, Comm: "wrk", State: 'Z', UTime: 250, STime: 180}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseStat([]byte(c.line))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			if got.Ticks() != c.want.UTime+c.want.STime {
				t.Errorf("Ticks = %d", got.Ticks())
			}
			if cpu := got.CPU(); cpu != (cpuTicks{User: c.want.UTime, System: c.want.STime}) || cpu.Total() != got.Ticks() {
				t.Errorf("CPU = %+v, want utime %d and stime %d apart", cpu, c.want.UTime, c.want.STime)
			}
		})
	}
}

func TestParseStatErrors(t *testing.T) {
	for _, line := range []string{
		"",
		"12 nginx S 1",
		"x (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13",
		"12 (a) S 1 2 3",
		"12 (a) S 1 2 3 4 5 6 7 8 9 10 -5 12 13",
		"12 (a) S one 2 3 4 5 6 7 8 9 10 11 12 13",
	} {
		if s, err := parseStat([]byte(line)); err == nil {
			t.Errorf("parseStat(%q) = %+v, want an error", line, s)
		}
	}
}

func TestReadStatSelf(t *testing.T) {
	s, err := readStat(os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if s.PID != os.Getpid() || s.PPID != os.Getppid() || s.State == 0 {
		t.Errorf("own stat = %+v, want pid %d ppid %d", s, os.Getpid(), os.Getppid())
	}
}

func TestSumTree(t *testing.T) {
	stats := []procStat{
		{PID: 1, PPID: 0, UTime: 1000},
		{PID: 10, PPID: 1, UTime: 5, STime: 5},      // nginx master
		{PID: 11, PPID: 10, UTime: 300, STime: 200}, // its worker
		{PID: 12, PPID: 11, UTime: 1},               // a grandchild
		{PID: 20, PPID: 1, UTime: 7},                // unrelated
	}
	got, err := sumTree(stats, 10)
	if want := (cpuTicks{User: 306, System: 205}); err != nil || got != want || got.Total() != 511 {
		t.Errorf("sumTree(10) = %+v, %v; want %+v (511 in all)", got, err, want)
	}
	if got, err := sumTree(stats, 20); err != nil || got != (cpuTicks{User: 7}) {
		t.Errorf("sumTree(20) = %+v, %v; want 7 user ticks", got, err)
	}
	if _, err := sumTree(stats, 30); err == nil {
		t.Error("sumTree of a missing process: want an error")
	}
}

// TestCPUTicks: the split of a server's run from two reads, and its system share; a run that
// counted no tick has no share.
func TestCPUTicks(t *testing.T) {
	// The nginx worker's line before and after a run: utime 1234 -> 1384, stime 567 -> 817.
	before, err := parseStat([]byte("4242 (nginx) S 4241 4241 4241 0 -1 4194624 188 0 0 0 1234 567 0 0 20 0 1 0 9876 100 200"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := parseStat([]byte("4242 (nginx) S 4241 4241 4241 0 -1 4194624 188 0 0 0 1384 817 0 0 20 0 1 0 9876 100 200"))
	if err != nil {
		t.Fatal(err)
	}
	run := after.CPU().Since(before.CPU())
	if run != (cpuTicks{User: 150, System: 250}) || run.Total() != after.Ticks()-before.Ticks() {
		t.Errorf("run = %+v, want 150 user and 250 system ticks (the total's 400)", run)
	}
	if got := run.SystemPercent(); got != 62.5 {
		t.Errorf("SystemPercent = %v, want 62.5", got)
	}
	if got := (cpuTicks{User: 3}).SystemPercent(); got != 0 {
		t.Errorf("user time only: %v, want 0", got)
	}
	if got := (cpuTicks{}).SystemPercent(); !math.IsNaN(got) {
		t.Errorf("no tick: %v, want NaN", got)
	}
	// A descendant gone between the reads makes a part go back: the total still wraps as the
	// difference of the totals did.
	now, then := cpuTicks{User: 10, System: 5}, cpuTicks{User: 12, System: 4}
	if got, want := now.Since(then).Total(), now.Total()-then.Total(); got != want {
		t.Errorf("wrapped total = %d, want %d", got, want)
	}
}

func TestParseSchedstat(t *testing.T) {
	n, err := parseSchedstat([]byte("123456789 2000 31\n"))
	if err != nil || n != 123456789 {
		t.Errorf("parseSchedstat = %d, %v", n, err)
	}
	for _, bad := range []string{"", "x 1 2"} {
		if _, err := parseSchedstat([]byte(bad)); err == nil {
			t.Errorf("parseSchedstat(%q): want an error", bad)
		}
	}
}

func TestTicksToUS(t *testing.T) {
	if got := ticksToUS(250); got != 2.5e6 {
		t.Errorf("ticksToUS(250) = %v, want 2.5e6", got)
	}
}

func TestParseCPUStat(t *testing.T) {
	in := "cpu  306820 0 328821 376656 1584 0 128107 154 0 0\n" +
		"cpu0 155264 1 163654 184065 327 2 68945 78 0 0\n" +
		"cpu1 151556 0 165167 192590 1256 0 59161 76 0 0\n" +
		"intr 25321569 0 0\nctxt 1\n"
	got, err := parseCPUStat([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]cpuTimes{
		0: {Busy: 155264 + 1 + 163654 + 2 + 68945 + 78, Idle: 184065 + 327, Steal: 78},
		1: {Busy: 151556 + 165167 + 59161 + 76, Idle: 192590 + 1256, Steal: 76},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, bad := range []string{"intr 1 2\n", "cpuX 1 2 3 4 5 6 7 8\n", "cpu0 1 2 x 4 5 6 7 8\n"} {
		if _, err := parseCPUStat([]byte(bad)); err == nil {
			t.Errorf("parseCPUStat(%q): want an error", bad)
		}
	}
}
