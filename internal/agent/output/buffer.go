// Package output keeps a job's combined output in memory: at least the last cap bytes, addressed by
// offsets that keep counting from the first byte ever written, so a reader asking "since N" gets
// what it has not seen yet (or what is left of it).
package output

import (
	"bytes"
	"strings"
	"sync"
)

// DefaultCap is how much output a Buffer keeps unless told otherwise.
const DefaultCap = 8 << 20

// Buffer is safe for concurrent use; it is an io.Writer.
type Buffer struct {
	mu      sync.Mutex
	cap     int
	data    []byte
	start   int64 // offset of data[0]
	changed chan struct{}
}

// New returns a buffer keeping the last capacity bytes (DefaultCap when capacity <= 0).
func New(capacity int) *Buffer {
	if capacity <= 0 {
		capacity = DefaultCap
	}
	return &Buffer{cap: capacity, changed: make(chan struct{})}
}

// Write appends p. Once twice the cap is held, the oldest bytes are dropped down to the cap (so
// the cost of dropping is spread over many writes).
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.data = append(b.data, p...)
	if over := len(b.data) - b.cap; len(b.data) > 2*b.cap {
		b.data = append(b.data[:0], b.data[over:]...)
		b.start += int64(over)
	}
	close(b.changed)
	b.changed = make(chan struct{})
	return len(p), nil
}

// WriteString appends s.
func (b *Buffer) WriteString(s string) { _, _ = b.Write([]byte(s)) }

// Len is the offset one past the last byte written.
func (b *Buffer) Len() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.start + int64(len(b.data))
}

// Since returns the bytes kept from offset since on (from the oldest kept byte if since is older).
func (b *Buffer) Since(since int64) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := max(since-b.start, 0)
	if i >= int64(len(b.data)) {
		return nil
	}
	return bytes.Clone(b.data[i:])
}

// Changed returns a channel closed at the next write.
func (b *Buffer) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// Index returns the offset of the first occurrence of text at or after offset from, or -1.
func (b *Buffer) Index(text string, from int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := max(from-b.start, 0)
	if i >= int64(len(b.data)) {
		return -1
	}
	j := bytes.Index(b.data[i:], []byte(text))
	if j < 0 {
		return -1
	}
	return b.start + i + int64(j)
}

// Tail returns the last n lines kept from offset from on, for error messages.
func (b *Buffer) Tail(from int64, n int) string {
	return LastLines(string(b.Since(from)), n)
}

// LastLines returns the last n lines of s, without a trailing newline.
func LastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
