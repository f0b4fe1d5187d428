// spin is the profiler's test program: it spins in main.spin, contends a lock in main.locked and
// serves Go's profiles on the address its first argument names.
package main

import (
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"sync"
	"time"
)

var mu sync.Mutex

//go:noinline
func spin(d time.Duration) int {
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		n++
	}
	return n
}

//go:noinline
func locked() {
	mu.Lock()
	spin(time.Millisecond)
	mu.Unlock()
}

func main() {
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)
	go func() { _ = http.ListenAndServe(os.Args[1], nil) }()
	for range 2 {
		go func() {
			for {
				locked()
			}
		}()
	}
	for {
		spin(10 * time.Millisecond)
	}
}
