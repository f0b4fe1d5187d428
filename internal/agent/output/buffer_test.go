package output

import (
	"strings"
	"testing"
)

func TestBufferOffsetsKeepCounting(t *testing.T) {
	b := New(4)
	b.WriteString("abcdef")
	if got := string(b.Since(2)); got != "cdef" {
		t.Errorf("Since(2) = %q", got)
	}
	b.WriteString("ghijk") // 11 bytes written, more than twice the cap: the last 4 are kept
	if b.Len() != 11 {
		t.Errorf("Len = %d, want 11", b.Len())
	}
	if got := string(b.Since(0)); got != "hijk" {
		t.Errorf("Since(0) = %q, want the kept tail", got)
	}
	if got := string(b.Since(9)); got != "jk" {
		t.Errorf("Since(9) = %q", got)
	}
	if got := b.Since(11); got != nil {
		t.Errorf("Since(11) = %q, want nothing", got)
	}
	if got := b.Index("hij", 0); got != 7 {
		t.Errorf("Index(hij) = %d, want 7", got)
	}
	if got := b.Index("hij", 8); got != -1 {
		t.Errorf("Index(hij, 8) = %d, want -1", got)
	}
	if got := b.Index("def", 0); got != -1 {
		t.Errorf("Index(def) = %d, want -1 (dropped)", got)
	}
}

func TestChangedFiresOnWrite(t *testing.T) {
	b := New(0)
	ch := b.Changed()
	select {
	case <-ch:
		t.Fatal("changed before any write")
	default:
	}
	b.WriteString("x")
	select {
	case <-ch:
	default:
		t.Fatal("not changed after a write")
	}
}

func TestTail(t *testing.T) {
	b := New(0)
	for i := range 30 {
		b.WriteString(strings.Repeat("x", i%3) + "\n")
	}
	got := b.Tail(0, 3)
	if got != "\nx\nxx" {
		t.Errorf("Tail = %q", got)
	}
	if LastLines("a\nb\n", 20) != "a\nb" {
		t.Errorf("LastLines short = %q", LastLines("a\nb\n", 20))
	}
}
