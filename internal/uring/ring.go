//go:build linux

// Package uring is a small io_uring ring over raw system calls (golang.org/x/sys/unix): setup,
// the mmap'd submission and completion rings, io_uring_enter with a timeout, and a provided
// buffer ring for multishot receives. It holds only what the load generator's HTTP/1.1 client
// (docs/LOADGEN.md, "I/O: io_uring") and the apps' server (internal/app/httpserver) need. A
// Ring is used by one goroutine, locked to its thread when it was set up with
// SetupSingleIssuer: the kernel then refuses (EEXIST) calls from any other thread.
package uring

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Setup flags (io_uring_setup) and features reported by the kernel.
const (
	SetupCQSize        = 1 << 3
	SetupSubmitAll     = 1 << 7
	SetupCoopTaskrun   = 1 << 8
	SetupSingleIssuer  = 1 << 12
	SetupDeferTaskrun  = 1 << 13
	featSingleMmap     = 1 << 0
	featNoDrop         = 1 << 1
	featExtArg         = 1 << 8
	enterGetEvents     = 1 << 0
	enterExtArg        = 1 << 3
	offSQRing          = 0
	offSQEs            = 0x10000000
	sizeofSQE          = 64
	sizeofCQE          = 16
	sizeofGeteventsArg = 24
)

// params is struct io_uring_params.
type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

// CQE is a completion: the submission's UserData, its result (negative errno) and flags.
type CQE struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

// Ring is one io_uring instance.
type Ring struct {
	fd       int
	mem      []byte // SQ and CQ rings (one mapping: FEAT_SINGLE_MMAP)
	sqeMem   []byte
	sqes     []SQE
	sqHead   *uint32
	sqTail   *uint32
	sqMask   uint32
	sqLen    uint32
	cqHead   *uint32
	cqTail   *uint32
	cqMask   uint32
	cqes     []CQE
	tail     uint32 // local SQ tail: SQEs prepared, published on Submit
	features uint32
	// ts and arg are Submit's timeout and struct io_uring_getevents_arg: in the Ring (on the
	// heap, which does not move) rather than on a goroutine stack, which may move.
	ts  unix.Timespec
	arg [3]uint64
}

// New sets up a ring with entries submission slots and cqEntries completion slots (0: twice
// entries) and the given setup flags.
func New(entries, cqEntries, flags uint32) (*Ring, error) {
	p := params{flags: flags}
	if cqEntries > 0 {
		p.flags |= SetupCQSize
		p.cqEntries = cqEntries
	}
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	r := &Ring{fd: int(fd), features: p.features}
	if err := r.mapRings(&p); err != nil {
		unix.Close(r.fd)
		return nil, err
	}
	return r, nil
}

func (r *Ring) mapRings(p *params) error {
	if p.features&featSingleMmap == 0 || p.features&featExtArg == 0 || p.features&featNoDrop == 0 {
		return fmt.Errorf("io_uring: kernel lacks single mmap, ext arg or nodrop (features %#x)", p.features)
	}
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*sizeofCQE)
	mem, err := unix.Mmap(r.fd, offSQRing, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("io_uring: mmap rings: %w", err)
	}
	sqeMem, err := unix.Mmap(r.fd, offSQEs, int(p.sqEntries*sizeofSQE), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		unix.Munmap(mem)
		return fmt.Errorf("io_uring: mmap SQEs: %w", err)
	}
	r.mem, r.sqeMem = mem, sqeMem
	u32 := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }
	r.sqHead, r.sqTail, r.sqMask, r.sqLen = u32(p.sqOff.head), u32(p.sqOff.tail), *u32(p.sqOff.ringMask), p.sqEntries
	r.cqHead, r.cqTail, r.cqMask = u32(p.cqOff.head), u32(p.cqOff.tail), *u32(p.cqOff.ringMask)
	r.cqes = unsafe.Slice((*CQE)(unsafe.Pointer(&mem[p.cqOff.cqes])), p.cqEntries)
	r.sqes = unsafe.Slice((*SQE)(unsafe.Pointer(&sqeMem[0])), p.sqEntries)
	array := unsafe.Slice((*uint32)(unsafe.Pointer(&mem[p.sqOff.array])), p.sqEntries)
	for i := range array {
		array[i] = uint32(i) // SQE i always sits in slot i
	}
	r.tail = atomic.LoadUint32(r.sqTail)
	return nil
}

// Close unmaps the rings and closes the ring's descriptor; the kernel cancels what is pending.
func (r *Ring) Close() error {
	unix.Munmap(r.sqeMem)
	unix.Munmap(r.mem)
	return unix.Close(r.fd)
}

// FD is the ring's descriptor (for Register calls).
func (r *Ring) FD() int { return r.fd }

// SQE returns the next free submission entry, zeroed, or nil when the ring is full (Submit first).
func (r *Ring) SQE() *SQE {
	if r.tail-atomic.LoadUint32(r.sqHead) >= r.sqLen {
		return nil
	}
	e := &r.sqes[r.tail&r.sqMask]
	*e = SQE{}
	r.tail++
	return e
}

// Next returns a free submission entry, submitting what is prepared while the ring is full.
func (r *Ring) Next() *SQE {
	for {
		if e := r.SQE(); e != nil {
			return e
		}
		r.Submit(false, 0)
	}
}

// CancelAll cancels every request in flight and waits, until limit passes, for the last
// completions of the pending requests whose last completion has not come (their buffers are
// not given back). It returns how many are still pending: memory they name may still be
// written, so it must then stay mapped.
func (r *Ring) CancelAll(pending int, limit time.Duration) int {
	if pending == 0 {
		return 0
	}
	r.Next().CancelAll(cancelData)
	pending++
	var cqes []CQE
	for deadline := time.Now().Add(limit); pending > 0 && time.Now().Before(deadline); {
		r.Submit(true, int64(time.Until(deadline)))
		for _, c := range r.Completions(cqes[:0]) {
			if c.Last() {
				pending--
			}
		}
	}
	return pending
}

// cancelData is the user data of CancelAll's own request.
const cancelData = ^uint64(0)

// Last says whether c is its request's last completion (a multishot one goes on otherwise).
func (c CQE) Last() bool { return c.Flags&CQEFMore == 0 }

// Pending is the number of prepared entries not yet submitted.
func (r *Ring) Pending() uint32 { return r.tail - atomic.LoadUint32(r.sqHead) }

// Submit publishes the prepared entries and calls io_uring_enter: it submits them and, when wait
// is true, waits for at least one completion or until timeoutNs (> 0) passes. A wait blocks in a
// plain system call, so the Go scheduler runs other goroutines meanwhile; a submission without a
// wait does not block and uses a raw one. EINTR and ETIME are not errors.
func (r *Ring) Submit(wait bool, timeoutNs int64) error {
	atomic.StoreUint32(r.sqTail, r.tail)
	toSubmit := uintptr(r.Pending())
	flags := uintptr(enterGetEvents)
	var errno unix.Errno
	if !wait {
		_, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), toSubmit, 0, flags, 0, 0)
	} else {
		if timeoutNs > 0 {
			r.ts = unix.NsecToTimespec(timeoutNs)
			r.arg = [3]uint64{0, 0, uint64(uintptr(unsafe.Pointer(&r.ts)))}
			flags |= enterExtArg
			_, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), toSubmit, 1, flags,
				uintptr(unsafe.Pointer(&r.arg)), sizeofGeteventsArg)
		} else {
			_, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), toSubmit, 1, flags, 0, 0)
		}
	}
	switch errno {
	case 0, unix.EINTR, unix.ETIME, unix.EAGAIN, unix.EBUSY:
		return nil
	}
	return fmt.Errorf("io_uring_enter: %w", errno)
}

// Completions appends the completions that are ready to dst, marks them seen and returns dst.
func (r *Ring) Completions(dst []CQE) []CQE {
	head := *r.cqHead
	tail := atomic.LoadUint32(r.cqTail)
	for ; head != tail; head++ {
		dst = append(dst, r.cqes[head&r.cqMask])
	}
	atomic.StoreUint32(r.cqHead, head)
	return dst
}

// register calls io_uring_register.
func (r *Ring) register(op uintptr, arg unsafe.Pointer, n uintptr) error {
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), op, uintptr(arg), n, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
