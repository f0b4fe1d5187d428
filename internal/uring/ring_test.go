//go:build linux

package uring

import (
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSendRecvMultishot sends on one end of a socket pair and receives on the other with a
// multishot receive into provided buffers, then sees the close.
func TestSendRecvMultishot(t *testing.T) {
	if err := Probe(); err != nil {
		t.Skipf("io_uring unavailable: %v", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := New(16, 0, Flags)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := NewBufRing(r, 1, 4, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	msg, err := NewRegion(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer FreeRegion(msg)
	copy(msg, "hello, ring")
	r.SQE().RecvMultishot(fds[1], 1, 7)
	r.SQE().Send(fds[0], msg[:11], 8)
	got := map[uint64][]CQE{}
	for i := 0; i < 10 && (len(got[7]) == 0 || len(got[8]) == 0); i++ {
		if err := r.Submit(true, 1e9); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Completions(nil) {
			got[c.UserData] = append(got[c.UserData], c)
		}
	}
	if len(got[8]) != 1 || got[8][0].Res != 11 {
		t.Fatalf("send completions %+v, want one of 11 bytes", got[8])
	}
	c := got[7][0]
	if c.Res != 11 || c.Flags&CQEFBuffer == 0 || c.Flags&CQEFMore == 0 {
		t.Fatalf("receive completion %+v, want 11 bytes in a buffer, more to come", c)
	}
	if s := string(b.Buf(uint16(c.Flags >> CQEBufferShift))[:c.Res]); s != "hello, ring" {
		t.Fatalf("received %q", s)
	}
	b.Recycle(uint16(c.Flags >> CQEBufferShift))
	b.Publish()
	unix.Close(fds[1]) // the receive holds its own reference: shut down to end it
	unix.Shutdown(fds[0], unix.SHUT_RDWR)
	var last CQE
	for i := 0; i < 10 && last.UserData != 7; i++ {
		if err := r.Submit(true, 1e9); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Completions(nil) {
			last = c
		}
	}
	if last.UserData != 7 || last.Res != 0 || last.Flags&CQEFMore != 0 {
		t.Fatalf("after the close: %+v, want the receive's end (0 bytes, no more)", last)
	}
}

// TestProbe: this kernel allows io_uring (the machine the project runs on does; elsewhere the
// probe's error must say why).
func TestProbe(t *testing.T) {
	if err := Probe(); err != nil {
		t.Logf("probe refused: %v", err)
		if err.Error() == "" {
			t.Fatal("empty reason")
		}
	}
}

// TestProbeConcurrent: probes on goroutines that move between threads (a single-issuer ring
// refuses calls from another thread than its own: the probe locks its thread).
func TestProbeConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if err := Probe(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
