// diagserver is a server built to a known truth for the diagnosis tests:
//
//	--mode spin     each request burns --work of CPU: CPU-bound, on every core it is given
//	--mode serial   each request sleeps --work inside a one-slot channel: serialized, CPU idle
//	--mode poolN    each request sleeps --work inside an N-slot channel (pool4: four at a time): a
//	                few at a time, exactly min(connections, N)/--work requests per second
//	--mode worker   one goroutine serves every request behind a channel, one per --work on a
//	                fixed schedule (a late wake-up is made up by the requests waiting):
//	                serialized without a mutex, exactly 1/--work requests per second
//	--mode loop     one goroutine locked to its own OS thread burns --work of CPU for every request,
//	                one after another (an event loop): serialized on one thread, exactly
//	                1/--work requests per second, one core busy whatever the cores
//	--mode mutex    each request sleeps --work holding one sync.Mutex: lock contention
//	--mode mutexspin each request burns --work of CPU holding one sync.Mutex: exactly one request
//	                per --work whatever the cores (a sleep's wake-up makes mutex's hold longer)
//	--mode stall    each request sleeps --work, all at once: throughput = connections / work
//	--mode fail     each request is answered 500 after --work of sleep
//	--mode errmix   every 10th request is answered 500, the others 200, each after --work of sleep
//	--mode limit    a rate limiter: requests are let through one per --work (1/--work per
//	                second whatever the connections), each waiting its turn in parallel, CPU idle
//	--mode freeze   requests are answered at once, except that every 5 s the server stops
//	                answering for --work (a periodic pause, as a stop-the-world collector's)
//
// It speaks HTTP/1.1 and HTTP/2 over cleartext with prior knowledge (h2c), so h2load can load it.
// With --metrics-port it serves the Go runtime's metrics (internal/app/metrics) for the agent's
// runtime counters, runtime-counter/lock-contention among them, the requests it answered
// (app_requests_total: runtime-counter/requests-per-second, which the unserved verdict reads) and
// Go's /debug/pprof/ (in mode mutex, sampling every lock contention).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crankshaft/crankshaft/internal/app/metrics"
)

func main() {
	port := flag.Int("port", 5000, "port on 127.0.0.1")
	metricsPort := flag.Int("metrics-port", 0, "port of /metrics on 127.0.0.1 (0: none)")
	mode := flag.String("mode", "spin", "spin, serial, poolN, worker, loop, mutex, mutexspin, stall, fail, errmix, limit or freeze")
	work := flag.Duration("work", time.Millisecond, "CPU (spin) or sleep (the others) per request")
	flag.Parse()
	if *mode == "mutex" {
		runtime.SetMutexProfileFraction(1) // its /debug/pprof/mutex names the lock (goProfiles)
	}
	handle, status := handler(*mode, *work), statuses(*mode)
	count := func() {}
	if *metricsPort > 0 {
		mln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*metricsPort)))
		if err != nil {
			log.Fatal(err)
		}
		m := metrics.New()
		count = func() { m.AddRequests(1) } // app_requests_total, as the apps count the requests they answer
		go func() { _ = m.Serve(context.Background(), mln, slog.Default()) }()
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		log.Fatal(err)
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{Protocols: &protocols, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		handle()
		w.WriteHeader(status())
		_, _ = w.Write([]byte("ok"))
		count()
	})}
	fmt.Println("Application started.")
	log.Fatal(srv.Serve(ln))
}

// statuses returns the status of each next answer: 500 for fail, every 10th 500 for errmix, else 200.
func statuses(mode string) func() int {
	switch mode {
	case "fail":
		return func() int { return http.StatusInternalServerError }
	case "errmix":
		var n atomic.Int64
		return func() int {
			if n.Add(1)%10 == 0 {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		}
	}
	return func() int { return http.StatusOK }
}

// slotted sleeps work in one of n slots: n requests at a time (serial: one).
func slotted(n int, work time.Duration) func() {
	slots := make(chan struct{}, n)
	return func() {
		slots <- struct{}{}
		time.Sleep(work)
		<-slots
	}
}

func handler(mode string, work time.Duration) func() {
	if n, err := strconv.Atoi(strings.TrimPrefix(mode, "pool")); err == nil && strings.HasPrefix(mode, "pool") && n > 0 {
		return slotted(n, work)
	}
	switch mode {
	case "spin":
		return func() {
			for end := time.Now().Add(work); time.Now().Before(end); {
			}
		}
	case "serial":
		return slotted(1, work)
	case "worker":
		jobs := make(chan chan struct{})
		go func() {
			var finish time.Time
			for done := range jobs {
				// A sleep wakes up late by a varying part of a millisecond (0.75 ms in a CI
				// run): scheduled from the last finish, the next requests absorb up to one
				// --work of lateness, so the rate does not depend on how busy the machine is.
				// Idle for longer, the schedule starts again from now.
				now := time.Now()
				if finish = finish.Add(work); finish.Before(now.Add(-work)) {
					finish = now.Add(work)
				}
				time.Sleep(time.Until(finish))
				close(done)
			}
		}()
		return func() {
			done := make(chan struct{})
			jobs <- done
			<-done
		}
	case "loop":
		jobs := make(chan chan struct{})
		go func() {
			runtime.LockOSThread() // the loop's thread does every request's work, and nothing else
			for done := range jobs {
				for end := time.Now().Add(work); time.Now().Before(end); {
				}
				close(done)
			}
		}()
		return func() {
			done := make(chan struct{})
			jobs <- done
			<-done
		}
	case "mutex":
		var mu sync.Mutex
		return func() {
			mu.Lock()
			time.Sleep(work)
			mu.Unlock()
		}
	case "mutexspin":
		var mu sync.Mutex
		return func() {
			mu.Lock()
			for end := time.Now().Add(work); time.Now().Before(end); {
			}
			mu.Unlock()
		}
	case "freeze":
		var paused sync.RWMutex
		go func() {
			for range time.Tick(5 * time.Second) {
				paused.Lock()
				time.Sleep(work)
				paused.Unlock()
			}
		}()
		return func() {
			paused.RLock()
			paused.RUnlock()
		}
	case "limit":
		var mu sync.Mutex
		var next time.Time
		return func() {
			mu.Lock()
			slot := next
			if now := time.Now(); slot.Before(now) {
				slot = now
			}
			next = slot.Add(work)
			mu.Unlock()
			time.Sleep(time.Until(slot))
		}
	case "stall", "fail", "errmix":
		return func() { time.Sleep(work) }
	}
	log.Fatalf("unknown --mode %q", mode)
	return nil
}
