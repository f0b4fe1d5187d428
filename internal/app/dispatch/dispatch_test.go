package dispatch

import (
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// funcTask adapts a function to Task.
type funcTask func()

func (f funcTask) Run() { f() }

func TestRingFIFOAcrossGrowth(t *testing.T) {
	var r ring
	var got []int
	next := 0
	for round := range 5 { // interleave pushes and pops so head wraps before growing
		for range 50 + round*40 {
			v := next
			next++
			r.push(funcTask(func() { got = append(got, v) }))
		}
		for range 30 {
			r.pop().Run()
		}
	}
	for t := r.pop(); t != nil; t = r.pop() {
		t.Run()
	}
	if len(got) != next {
		t.Fatalf("popped %d of %d", len(got), next)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("position %d holds %d: not FIFO", i, v)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"inline", "shared", "partitioned"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseMode("global"); err == nil || !strings.Contains(err.Error(), `dispatch mode "global": want inline, shared or partitioned`) {
		t.Errorf("ParseMode(global): %v", err)
	}
	if p, err := New(Options{Mode: Inline}); p != nil || err != nil {
		t.Errorf("New(inline) = %v, %v; want nil pool", p, err)
	}
	if _, err := New(Options{Mode: Shared, Workers: -1}); err == nil || !strings.Contains(err.Error(), "partitions 0 and workers -1 must not be negative") {
		t.Errorf("negative workers: %v", err)
	}
}

// TestPartitionFIFO checks each partition hands out its tasks oldest first, to its home worker
// and to a thief alike: a single worker serves (and steals from) four partitions, so the run
// order of each partition's tasks is its dequeue order.
func TestPartitionFIFO(t *testing.T) {
	const parts, per = 4, 500
	p := NewPartitioned(parts, 1)
	var mu sync.Mutex
	seen := make([][]int, parts)
	var wg sync.WaitGroup
	wg.Add(parts * per)
	gate := make(chan struct{})
	p.Submit(0, funcTask(func() { <-gate })) // hold the worker until every task is queued
	for i := range per {
		for k := range parts {
			p.Submit(uint64(k), funcTask(func() {
				mu.Lock()
				seen[k] = append(seen[k], i)
				mu.Unlock()
				wg.Done()
			}))
		}
	}
	close(gate)
	wg.Wait()
	p.Close()
	for k, s := range seen {
		if len(s) != per {
			t.Fatalf("partition %d ran %d tasks, want %d", k, len(s), per)
		}
		for i := 1; i < len(s); i++ {
			if s[i] < s[i-1] {
				t.Fatalf("partition %d ran %d after %d: not FIFO", k, s[i], s[i-1])
			}
		}
	}
}

// TestStealing blocks partition 0's only home worker and checks a worker of partition 1 runs
// the task queued behind it.
func TestStealing(t *testing.T) {
	p := NewPartitioned(2, 2)
	defer p.Close()
	release, stolen := make(chan struct{}), make(chan struct{})
	started := make(chan struct{})
	p.Submit(0, funcTask(func() { close(started); <-release }))
	<-started
	p.Submit(0, funcTask(func() { close(stolen) }))
	select {
	case <-stolen:
	case <-time.After(5 * time.Second):
		t.Fatal("task behind a blocked worker was not stolen")
	}
	close(release)
	if p.Steals() < 1 {
		t.Fatalf("steals = %d, want >= 1", p.Steals())
	}
}

// TestNoLostTasks runs bounded concurrent producers against both pools and counts every task.
func TestNoLostTasks(t *testing.T) {
	pools := map[string]func() Pool{
		"shared":      func() Pool { return NewShared(3) },
		"partitioned": func() Pool { return NewPartitioned(3, 5) },
	}
	for name, newPool := range pools {
		t.Run(name, func(t *testing.T) {
			const producers, per = 16, 2000
			p := newPool()
			var ran atomic.Int64
			var wg sync.WaitGroup
			for id := range producers {
				wg.Go(func() {
					for range per {
						p.Submit(uint64(id), funcTask(func() { ran.Add(1) }))
					}
				})
			}
			wg.Wait()
			p.Close() // drains what is queued
			if got := ran.Load(); got != producers*per {
				t.Fatalf("ran %d tasks, want %d", got, producers*per)
			}
			if p.Len() != 0 {
				t.Fatalf("Len = %d after Close", p.Len())
			}
		})
	}
}

func TestLen(t *testing.T) {
	for name, p := range map[string]Pool{"shared": NewShared(1), "partitioned": NewPartitioned(2, 1)} {
		gate, started := make(chan struct{}), make(chan struct{})
		p.Submit(0, funcTask(func() { close(started); <-gate }))
		<-started
		for k := range 5 {
			p.Submit(uint64(k), funcTask(func() {}))
		}
		if got := p.Len(); got != 5 {
			t.Errorf("%s: Len = %d, want 5", name, got)
		}
		close(gate)
		p.Close()
	}
}

// BenchmarkContention submits from 64 goroutines, each waiting for its task like a connection
// does, and reports the runtime's mutex wait per task.
func BenchmarkContention(b *testing.B) {
	for name, newPool := range map[string]func() Pool{
		"shared":      func() Pool { return NewShared(8) },
		"partitioned": func() Pool { return NewPartitioned(8, 8) },
	} {
		b.Run(name, func(b *testing.B) {
			p := newPool()
			defer p.Close()
			s := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
			metrics.Read(s)
			before := s[0].Value.Float64()
			var next atomic.Int64
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				id := uint64(next.Add(1))
				done := make(chan struct{}, 1)
				task := funcTask(func() { done <- struct{}{} })
				for pb.Next() {
					p.Submit(id, task)
					<-done
				}
			})
			metrics.Read(s)
			b.ReportMetric((s[0].Value.Float64()-before)*1e9/float64(b.N), "wait-ns/task")
		})
	}
}
