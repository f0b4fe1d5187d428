package dispatch

// ring is a growable FIFO of tasks. It is not safe for concurrent use.
type ring struct {
	items []Task
	head  int
	n     int
}

func (r *ring) push(t Task) {
	if r.n == len(r.items) {
		r.grow()
	}
	r.items[(r.head+r.n)&(len(r.items)-1)] = t
	r.n++
}

// pop removes the oldest task; it returns nil when the ring is empty.
func (r *ring) pop() Task {
	if r.n == 0 {
		return nil
	}
	t := r.items[r.head]
	r.items[r.head] = nil
	r.head = (r.head + 1) & (len(r.items) - 1)
	r.n--
	return t
}

func (r *ring) grow() {
	size := 2 * len(r.items)
	if size == 0 {
		size = 64
	}
	items := make([]Task, size)
	for i := 0; i < r.n; i++ {
		items[i] = r.items[(r.head+i)&(len(r.items)-1)]
	}
	r.items, r.head = items, 0
}
