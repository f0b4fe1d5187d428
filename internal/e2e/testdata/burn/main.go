// Command burn keeps its CPU time at a given share of one core for a given time, then exits 0.
// It spins while its CPU time is behind the target and sleeps while ahead, so time lost to being
// descheduled is made up; as root it raises its priority so a busy machine still gives it its
// share. The e2e tests run it as a crank job and compare benchmarks/cpu/raw with -percent.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
)

func main() {
	percent := flag.Float64("percent", 50, "share of one core to use, in percent")
	duration := flag.Duration("duration", 5*time.Second, "how long to burn")
	flag.Parse()
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, -10) // this thread, when allowed
	start, cpu0 := time.Now(), cpuTime()
	fmt.Println("burning")
	share := *percent / 100
	for time.Since(start) < *duration {
		if float64(cpuTime()-cpu0) < share*float64(time.Since(start)) {
			for t := time.Now(); time.Since(t) < time.Millisecond; {
			}
		} else {
			time.Sleep(time.Millisecond)
		}
	}
	os.Exit(0)
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
