package dispatch

import (
	"sync"
	"sync/atomic"
)

// partition is one queue with its own lock. size mirrors q.n so that workers can peek at it
// without taking the lock.
type partition struct {
	mu   sync.Mutex
	q    ring
	size atomic.Int64
	_    [64]byte // keep partitions on separate cache lines
}

// worker is one worker goroutine's parking spot. A producer that flips idle from true to false
// owes the worker exactly one token on wake (capacity 1, so the send never blocks).
type worker struct {
	home  int
	idle  atomic.Bool
	wake  chan struct{}
	batch []Task // tasks taken from a queue, run by this worker only
	_     [64]byte
}

// Batch sizes: a worker takes up to homeBatch tasks from its own partition in one lock, and up to
// half of another partition's queue (at most stealBatch) when it steals.
const (
	homeBatch  = 16
	stealBatch = 16
)

// PartitionedPool has one queue per partition, each with its own mutex. A task goes to the
// partition its key selects; each worker drains its home partition first and steals from the
// others when it runs dry. Waking a worker takes no lock.
type PartitionedPool struct {
	parts   []partition
	workers []worker
	idle    atomic.Int32 // number of workers parked or about to park
	// searching counts workers woken to look for work that have not found any yet; while one
	// is searching, producers do not wake thieves (like Go's spinning Ms and .NET's coalesced
	// thread requests), which keeps idle workers from stampeding a busy partition.
	searching atomic.Int32
	closed    atomic.Bool
	steals    atomic.Uint64
	wg        sync.WaitGroup
}

// NewPartitioned starts workers goroutines over partitions queues; worker i lives on partition
// i % partitions.
func NewPartitioned(partitions, workers int) *PartitionedPool {
	p := newPartitioned(partitions, workers)
	p.wg.Add(workers)
	for i := range p.workers {
		go p.work(&p.workers[i])
	}
	return p
}

func newPartitioned(partitions, workers int) *PartitionedPool {
	p := &PartitionedPool{parts: make([]partition, partitions), workers: make([]worker, workers)}
	for i := range p.workers {
		p.workers[i].home = i % partitions
		p.workers[i].wake = make(chan struct{}, 1)
		p.workers[i].batch = make([]Task, 0, max(homeBatch, stealBatch))
	}
	return p
}

// Submit queues t on partition key % partitions and wakes a parked worker of that partition, or
// else one other parked worker when none is already searching.
func (p *PartitionedPool) Submit(key uint64, t Task) {
	i := int(key % uint64(len(p.parts)))
	q := &p.parts[i]
	q.mu.Lock()
	q.q.push(t)
	q.size.Add(1)
	q.mu.Unlock()
	if p.idle.Load() == 0 {
		return
	}
	// Workers of partition i are i, i+partitions, ...; any other idle worker would steal.
	for k := i; k < len(p.workers); k += len(p.parts) {
		if p.unpark(&p.workers[k]) {
			return
		}
	}
	if p.searching.Load() > 0 {
		return
	}
	for k := range p.workers {
		if w := &p.workers[k]; w.home != i && p.unpark(w) {
			return
		}
	}
}

// unpark wakes w if it is idle, counting it as searching.
func (p *PartitionedPool) unpark(w *worker) bool {
	if !w.idle.Load() || !w.idle.CompareAndSwap(true, false) {
		return false
	}
	p.idle.Add(-1)
	p.searching.Add(1)
	w.wake <- struct{}{}
	return true
}

// Len returns the number of queued tasks over all partitions.
func (p *PartitionedPool) Len() int {
	n := int64(0)
	for i := range p.parts {
		n += p.parts[i].size.Load()
	}
	return int(n)
}

// Steals returns how many tasks ran on a worker of another partition than their own.
func (p *PartitionedPool) Steals() uint64 { return p.steals.Load() }

// Close lets the workers drain the queues, then stops them and waits for them.
func (p *PartitionedPool) Close() {
	p.closed.Store(true)
	for i := range p.workers {
		p.unpark(&p.workers[i])
	}
	p.wg.Wait()
}

func (p *PartitionedPool) work(w *worker) {
	defer p.wg.Done()
	searching := false
	for {
		w.batch = p.parts[w.home].take(w.batch[:0], homeBatch, false)
		if len(w.batch) == 0 {
			w.batch = p.steal(w.home, w.batch)
			p.steals.Add(uint64(len(w.batch)))
		}
		if searching {
			p.searching.Add(-1) // found work, or about to park and re-check
			searching = false
		}
		if len(w.batch) == 0 {
			if !p.park(w) {
				return
			}
			searching = true
			continue
		}
		for i, t := range w.batch {
			w.batch[i] = nil
			t.Run()
		}
	}
}

// park sleeps until a producer wakes w or work is found on re-check; it returns false once the
// pool is closed and empty. Announcing idleness before re-checking the queues means a producer
// either sees the worker idle or the worker sees the producer's task.
func (p *PartitionedPool) park(w *worker) bool {
	w.idle.Store(true)
	p.idle.Add(1)
	if p.Len() > 0 || p.closed.Load() {
		if w.idle.CompareAndSwap(true, false) {
			p.idle.Add(-1)
			p.searching.Add(1) // balanced by the caller like a wake-up
		} else {
			<-w.wake // a producer claimed this worker: take its token
		}
	} else {
		<-w.wake
	}
	return !p.closed.Load() || p.Len() > 0
}

// steal takes up to half of the first other partition that has queued tasks.
func (p *PartitionedPool) steal(h int, dst []Task) []Task {
	n := len(p.parts)
	for k := 1; k < n; k++ {
		if dst = p.parts[(h+k)%n].take(dst, stealBatch, true); len(dst) > 0 {
			return dst
		}
	}
	return dst
}

// take appends up to limit of the oldest queued tasks (half of them when half is set) to dst.
func (q *partition) take(dst []Task, limit int, half bool) []Task {
	if q.size.Load() == 0 {
		return dst
	}
	q.mu.Lock()
	k := q.q.n
	if half {
		k = (k + 1) / 2
	}
	k = min(k, limit)
	for range k {
		dst = append(dst, q.q.pop())
	}
	q.size.Add(-int64(k))
	q.mu.Unlock()
	return dst
}
