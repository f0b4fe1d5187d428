package dispatch

import (
	"sync"
	"sync/atomic"
)

// partition is one queue with its own lock. size mirrors q.n so other workers can peek without
// taking the lock; idle counts the workers waiting on cond (changed only under mu).
type partition struct {
	mu   sync.Mutex
	cond sync.Cond
	q    ring
	size atomic.Int64
	idle atomic.Int32
	_    [64]byte // keep partitions on separate cache lines
}

// PartitionedPool has one queue per partition. A task goes to the partition its key selects;
// each worker drains its home partition first and steals from the others when it runs dry.
type PartitionedPool struct {
	parts  []partition
	closed atomic.Bool
	steals atomic.Uint64
	wg     sync.WaitGroup
}

// NewPartitioned starts workers goroutines over partitions queues; worker i lives on partition
// i % partitions.
func NewPartitioned(partitions, workers int) *PartitionedPool {
	p := newPartitioned(partitions)
	p.wg.Add(workers)
	for i := range workers {
		go p.work(i % partitions)
	}
	return p
}

func newPartitioned(partitions int) *PartitionedPool {
	p := &PartitionedPool{parts: make([]partition, partitions)}
	for i := range p.parts {
		p.parts[i].cond.L = &p.parts[i].mu
	}
	return p
}

// Submit queues t on partition key % partitions and wakes a worker: the partition's own when
// one is idle, otherwise an idle worker of another partition, which will steal it.
func (p *PartitionedPool) Submit(key uint64, t Task) {
	i := int(key % uint64(len(p.parts)))
	home := &p.parts[i]
	home.mu.Lock()
	home.q.push(t)
	home.size.Add(1)
	idle := home.idle.Load() > 0
	home.mu.Unlock()
	if idle {
		home.cond.Signal()
		return
	}
	p.wakeThief(i)
}

// wakeThief signals one idle worker of another partition. Signalling under that partition's lock
// means a worker between deciding to sleep and sleeping cannot miss it.
func (p *PartitionedPool) wakeThief(from int) {
	n := len(p.parts)
	for k := 1; k < n; k++ {
		q := &p.parts[(from+k)%n]
		if q.idle.Load() > 0 {
			q.mu.Lock()
			q.cond.Signal()
			q.mu.Unlock()
			return
		}
	}
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

// Close drains the queues and stops the workers.
func (p *PartitionedPool) Close() {
	p.closed.Store(true)
	for i := range p.parts {
		q := &p.parts[i]
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	}
	p.wg.Wait()
}

func (p *PartitionedPool) work(h int) {
	defer p.wg.Done()
	for {
		if t := p.parts[h].pop(); t != nil {
			t.Run()
			continue
		}
		if t := p.steal(h); t != nil {
			p.steals.Add(1)
			t.Run()
			continue
		}
		if !p.sleep(h) {
			return
		}
	}
}

// sleep waits until some partition has work; it returns false once the pool is closed and empty.
func (p *PartitionedPool) sleep(h int) bool {
	home := &p.parts[h]
	home.mu.Lock()
	defer home.mu.Unlock()
	for {
		home.idle.Add(1)
		if home.q.n > 0 || p.Len() > 0 {
			home.idle.Add(-1)
			return true
		}
		if p.closed.Load() {
			home.idle.Add(-1)
			return false
		}
		home.cond.Wait()
		home.idle.Add(-1)
	}
}

// steal takes the oldest task of the first other partition that has one.
func (p *PartitionedPool) steal(h int) Task {
	n := len(p.parts)
	for k := 1; k < n; k++ {
		q := &p.parts[(h+k)%n]
		if q.size.Load() == 0 {
			continue
		}
		if t := q.pop(); t != nil {
			return t
		}
	}
	return nil
}

func (q *partition) pop() Task {
	if q.size.Load() == 0 {
		return nil
	}
	q.mu.Lock()
	t := q.q.pop()
	if t != nil {
		q.size.Add(-1)
	}
	q.mu.Unlock()
	return t
}
