//go:build linux

package uring

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Opcodes, SQE flags and CQE flags used here (include/uapi/linux/io_uring.h).
const (
	opPollAdd     = 6
	opLinkTimeout = 15
	opConnect     = 16
	opSend        = 26
	opRecv        = 27
	opCancel      = 14

	sqeIOLink       = 1 << 2
	sqeBufferSelect = 1 << 5

	recvMultishot = 1 << 1 // ioprio of a receive

	cancelAny = 1 << 2 // IORING_ASYNC_CANCEL_ANY

	// CQEFBuffer says the completion carries a provided buffer's id (Flags >> CQEBufferShift).
	CQEFBuffer = 1 << 0
	// CQEFMore says a multishot request goes on after this completion.
	CQEFMore       = 1 << 1
	CQEBufferShift = 16
)

// SQE is struct io_uring_sqe (64 bytes).
type SQE struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	_           uint64
}

var _ [sizeofSQE - unsafe.Sizeof(SQE{})]struct{} // the layout is the kernel's

// Send sends len(p) bytes of p on fd (MSG_NOSIGNAL). p must stay valid and unchanged until the
// completion: memory outside the Go heap (Region) is simplest.
func (e *SQE) Send(fd int, p []byte, userData uint64) {
	e.opcode, e.fd, e.userData = opSend, int32(fd), userData
	e.addr, e.len = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(p)))), uint32(len(p))
	e.opFlags = unix.MSG_NOSIGNAL
}

// RecvMultishot receives on fd into buffers of group until it fails, the peer closes or the
// group runs out (then the last completion lacks CQEFMore).
func (e *SQE) RecvMultishot(fd int, group uint16, userData uint64) {
	e.opcode, e.fd, e.userData = opRecv, int32(fd), userData
	e.flags = sqeBufferSelect
	e.ioprio = recvMultishot
	e.bufIndex = group
}

// Connect connects fd to the socket address sa (a raw sockaddr of n bytes), which the kernel
// copies when the entry is submitted. With a timeout (> 0) it is linked to a second entry,
// which the caller must have room for, that cancels it then; that entry's completion carries
// timeoutData.
func (e *SQE) Connect(fd int, sa unsafe.Pointer, n uint32, userData uint64) {
	e.opcode, e.fd, e.userData = opConnect, int32(fd), userData
	e.addr, e.off = uint64(uintptr(sa)), uint64(n)
}

// LinkTimeout makes the previous entry, which must carry Link, fail with ECANCELED after ts.
// ts must stay valid until the submission.
func (e *SQE) LinkTimeout(ts *unix.Timespec, userData uint64) {
	e.opcode, e.fd, e.userData = opLinkTimeout, -1, userData
	e.addr, e.len = uint64(uintptr(unsafe.Pointer(ts))), 1
}

// Link makes the next entry depend on this one.
func (e *SQE) Link() { e.flags |= sqeIOLink }

// PollIn completes once when fd is readable.
func (e *SQE) PollIn(fd int, userData uint64) {
	e.opcode, e.fd, e.userData = opPollAdd, int32(fd), userData
	e.opFlags = unix.POLLIN
}

// Cancel asks the kernel to cancel the request whose user data is target (every completion of
// a multishot request then ends with the last, which lacks CQEFMore).
func (e *SQE) Cancel(target, userData uint64) {
	e.opcode, e.fd, e.userData = opCancel, -1, userData
	e.addr = target
}

// CancelAll asks the kernel to cancel every request in flight.
func (e *SQE) CancelAll(userData uint64) {
	e.opcode, e.fd, e.userData = opCancel, -1, userData
	e.opFlags = cancelAny
}
