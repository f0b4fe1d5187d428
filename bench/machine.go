package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/uring"
	"golang.org/x/sys/unix"
)

// machine describes the machine the bench ran on.
type machine struct {
	CPUModel string
	Cores    int
	Kernel   string
	OS, Arch string
	// Uring is "" where the kernel allows io_uring (the apps' --io auto then serves on it), else
	// why not.
	Uring string
}

func readMachine() machine {
	m := machine{Cores: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUModel: "unknown", Kernel: "unknown"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(f)
		f.Close()
	}
	if err := uring.Probe(); err != nil {
		m.Uring = err.Error()
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = string(bytes.TrimRight(u.Release[:], "\x00"))
	}
	return m
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// loadAverage is the 1, 5 and 15 minute load averages ("4.73 5.60 5.65").
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// repoCommit is the repository's HEAD commit, with "+dirty" when its work tree differs from it:
// what the bench measured.
func repoCommit(ctx context.Context, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	repo := bisect.Repo{Dir: dir}
	head, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		return "", err
	}
	dirty, err := repo.Dirty(ctx)
	if err != nil {
		return "", err
	}
	if dirty {
		return head.SHA + "+dirty", nil
	}
	return head.SHA, nil
}
