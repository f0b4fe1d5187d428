package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"

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
