package dispatch

import (
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// mutexWait reads the runtime's cumulative mutex wait, the source of
// go_sync_mutex_wait_total_seconds_total.
func mutexWait(t testing.TB) float64 {
	s := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		t.Fatalf("runtime metric %s unsupported", s[0].Name)
	}
	return s[0].Value.Float64()
}

// doneTask is a task that does a little work and reports on its producer's channel.
type doneTask struct {
	done chan struct{}
	sink uint64
}

func (d *doneTask) Run() {
	for i := range 200 {
		d.sink += uint64(i) * 2654435761
	}
	d.done <- struct{}{}
}

// load runs producers goroutines, each submitting perProducer tasks one at a time and waiting
// for each, as a connection does; it returns the mutex wait and the time it took.
func load(t testing.TB, p Pool, producers, perProducer, batch int) (float64, time.Duration) {
	before, start := mutexWait(t), time.Now()
	var wg sync.WaitGroup
	for id := range producers {
		wg.Go(func() {
			done := make(chan struct{}, batch)
			tasks := make([]doneTask, batch)
			for i := range tasks {
				tasks[i].done = done
			}
			for range perProducer / batch {
				for i := range tasks {
					p.Submit(uint64(id), &tasks[i])
				}
				for range tasks {
					<-done
				}
			}
		})
	}
	wg.Wait()
	return mutexWait(t) - before, time.Since(start)
}

func TestSharedContendsMoreThanPartitioned(t *testing.T) {
	const producers, per, workers = 64, 3200, 2
	for round, batch := range []int{1, 16, 1, 16} {
		shared := NewShared(workers)
		sw, sd := load(t, shared, producers, per, batch)
		shared.Close()
		part := NewPartitioned(workers, workers)
		pw, pd := load(t, part, producers, per, batch)
		part.Close()
		t.Logf("round %d batch %d: shared wait %.4fs in %v; partitioned wait %.4fs in %v (steals %d)", round, batch, sw, sd, pw, pd, part.Steals())
	}
}
