package dispatch

import "sync"

// SharedPool is one FIFO queue, guarded by one mutex, drained by all workers: every Submit and
// every worker contends on the same lock.
type SharedPool struct {
	mu     sync.Mutex
	cond   sync.Cond
	q      ring
	closed bool
	wg     sync.WaitGroup
}

// NewShared starts workers goroutines draining one shared queue.
func NewShared(workers int) *SharedPool {
	p := &SharedPool{}
	p.cond.L = &p.mu
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// Submit queues t; the key is ignored.
func (p *SharedPool) Submit(_ uint64, t Task) {
	p.mu.Lock()
	p.q.push(t)
	p.mu.Unlock()
	p.cond.Signal()
}

// Len returns the number of queued tasks.
func (p *SharedPool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.q.n
}

// Close drains the queue and stops the workers.
func (p *SharedPool) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cond.Broadcast()
	p.wg.Wait()
}

func (p *SharedPool) work() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		for p.q.n == 0 && !p.closed {
			p.cond.Wait()
		}
		t := p.q.pop()
		p.mu.Unlock()
		if t == nil {
			return
		}
		t.Run()
	}
}
