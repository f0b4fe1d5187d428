//go:build linux

package uring

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	registerPbufRing   = 22
	unregisterPbufRing = 23
	sizeofBuf          = 16 // struct io_uring_buf
)

// BufRing is a provided buffer ring: count buffers of size bytes that the kernel picks from for
// receives with buffer select, and that the user gives back once read.
type BufRing struct {
	r     *Ring
	group uint16
	ring  []byte // struct io_uring_buf entries; the tail is entry 0's last 2 bytes
	data  []byte // count*size bytes of buffers, outside the Go heap
	size  int
	mask  uint16
	tail  uint16
}

// NewBufRing registers a buffer ring of count (a power of two) buffers of size bytes as group.
func NewBufRing(r *Ring, group uint16, count, size int) (*BufRing, error) {
	if count <= 0 || count&(count-1) != 0 || count > 1<<15 {
		return nil, fmt.Errorf("buffer ring: %d buffers is not a power of two up to 32768", count)
	}
	ring, err := unix.Mmap(-1, 0, count*sizeofBuf, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANONYMOUS|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("buffer ring: %w", err)
	}
	data, err := NewRegion(count * size)
	if err != nil {
		unix.Munmap(ring)
		return nil, err
	}
	b := &BufRing{r: r, group: group, ring: ring, data: data, size: size, mask: uint16(count - 1)}
	reg := struct {
		ringAddr    uint64
		ringEntries uint32
		bgid, flags uint16
		resv        [3]uint64
	}{ringAddr: uint64(uintptr(unsafe.Pointer(&ring[0]))), ringEntries: uint32(count), bgid: group}
	if err := r.register(registerPbufRing, unsafe.Pointer(&reg), 1); err != nil {
		b.free()
		return nil, fmt.Errorf("io_uring_register(PBUF_RING): %w", err)
	}
	for i := range count {
		b.put(uint16(i))
	}
	b.publish()
	return b, nil
}

// Buf is buffer id's bytes.
func (b *BufRing) Buf(id uint16) []byte {
	off := int(id) * b.size
	return b.data[off : off+b.size : off+b.size]
}

// Handle calls complete for each of cqes, then gives back the provided buffer the completion
// carried, if any: complete reads it, and must not keep it. It returns how many of cqes were
// their request's last completion.
func (b *BufRing) Handle(cqes []CQE, complete func(CQE)) (last int) {
	for _, c := range cqes {
		if c.Last() {
			last++
		}
		complete(c)
		if c.Flags&CQEFBuffer != 0 {
			b.Recycle(c.Buffer())
		}
	}
	return last
}

// Recycle gives buffer id back to the kernel (visible after Publish).
func (b *BufRing) Recycle(id uint16) { b.put(id) }

// Publish makes the recycled buffers visible to the kernel.
func (b *BufRing) Publish() { b.publish() }

func (b *BufRing) put(id uint16) {
	e := b.ring[int(b.tail&b.mask)*sizeofBuf:]
	*(*uint64)(unsafe.Pointer(&e[0])) = uint64(uintptr(unsafe.Pointer(&b.data[int(id)*b.size])))
	*(*uint32)(unsafe.Pointer(&e[8])) = uint32(b.size)
	*(*uint16)(unsafe.Pointer(&e[12])) = id
	b.tail++
}

func (b *BufRing) publish() {
	// The tail is a 16-bit field at offset 14; it shares a 32-bit word with entry 0's bid, which
	// only this side writes, so the store of the whole word is release-ordered and safe.
	word := (*uint32)(unsafe.Pointer(&b.ring[12]))
	bid := atomic.LoadUint32(word) & 0xffff
	atomic.StoreUint32(word, bid|uint32(b.tail)<<16)
}

// Close unregisters the group and frees its memory.
func (b *BufRing) Close() error {
	reg := struct {
		ringAddr    uint64
		ringEntries uint32
		bgid, flags uint16
		resv        [3]uint64
	}{bgid: b.group}
	err := b.r.register(unregisterPbufRing, unsafe.Pointer(&reg), 1)
	b.free()
	return err
}

func (b *BufRing) free() {
	unix.Munmap(b.ring)
	unix.Munmap(b.data)
}

// NewRegion maps n bytes outside the Go heap, for buffers the kernel reads or writes after the
// call that named them returned. FreeRegion unmaps it.
func NewRegion(n int) ([]byte, error) {
	p, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANONYMOUS|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("mmap %d bytes: %w", n, err)
	}
	return p, nil
}

// FreeRegion unmaps a region from NewRegion.
func FreeRegion(p []byte) error { return unix.Munmap(p) }
