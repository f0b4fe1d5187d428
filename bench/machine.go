package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// machine describes the machine the bench ran on.
type machine struct {
	CPUModel string
	Cores    int
	Kernel   string
	OS, Arch string
}

func readMachine() machine {
	m := machine{Cores: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUModel: "unknown", Kernel: "unknown"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(f)
		f.Close()
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

// repoCommit is the repository's HEAD commit, with "+dirty" when its work tree differs from it
// (`git status --porcelain` lists anything): what the bench measured.
func repoCommit(ctx context.Context, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
			}
			return "", fmt.Errorf("git %s in %s: %w", strings.Join(args, " "), dir, err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	head, err := git("rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	status, err := git("status", "--porcelain")
	if err != nil {
		return "", err
	}
	if status != "" {
		head += "+dirty"
	}
	return head, nil
}
