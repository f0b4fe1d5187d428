package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// boundedServer answers with h; its client has bounds b.
func boundedServer(t *testing.T, b Bounds, h http.HandlerFunc) (*Client, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, "tok", nil, WithBounds(b))
	if err != nil {
		t.Fatal(err)
	}
	return c, srv.URL
}

// waitGone blocks a handler until its client goes, or release is closed (a server that has not
// read the body does not see its client go).
func waitGone(r *http.Request, release <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-release:
	}
}

// TestAnswerBounds: an answer past its bound is an error naming the agent, the request and the
// bound; an output read past its bound returns the bound's worth, the rest for the next read.
func TestAnswerBounds(t *testing.T) {
	b := DefaultBounds
	b.Info, b.Output = 1024, 10
	c, url := boundedServer(t, b, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"hardware":"` + strings.Repeat("x", 5000) + `"}`))
	})
	_, err := c.Info(t.Context())
	var be *BoundError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "agent "+url+": GET /info: answer larger than 1024 bytes") {
		t.Errorf("Info of 5 KB with a 1 KB bound: %v", err)
	}
	out, err := c.Output(t.Context(), "j", 0)
	if err != nil || out != `{"hardware` {
		t.Errorf("Output with a 10-byte bound: %q, %v; want the first 10 bytes", out, err)
	}
}

// TestUploadBounds: an upload the agent stops reading, or never answers once read, ends after
// UploadSilence with an error naming the agent and which bound it was.
func TestUploadBounds(t *testing.T) {
	b := DefaultBounds
	b.UploadSilence = 300 * time.Millisecond
	for _, c := range []struct {
		name string
		h    func(w http.ResponseWriter, r *http.Request, release <-chan struct{})
		want string
	}{
		{"reads nothing", func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) { waitGone(r, release) }, "the agent read none of the upload for 300ms"},
		{"never answers", func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			_, _ = io.Copy(io.Discard, r.Body)
			waitGone(r, release)
		}, "no answer within 300ms of the upload's end"},
	} {
		t.Run(c.name, func(t *testing.T) {
			release := make(chan struct{})
			cl, url := boundedServer(t, b, func(w http.ResponseWriter, r *http.Request) { c.h(w, r, release) })
			start := time.Now()
			err := cl.UploadSource(t.Context(), "j", "", bytes.NewReader(make([]byte, 64<<20)))
			close(release) // the handler goes; srv.Close then finds no request
			var be *BoundError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), "agent "+url+": PUT /jobs/j/source: "+c.want) {
				t.Errorf("upload: %v, want %q", err, c.want)
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("upload ended after %s, want about 300 ms past the data's end", took)
			}
		})
	}
}

// TestRedirectRefused: an agent's redirect was followed (a job's description, its environment
// included, posted again wherever it pointed); it is an error naming the agent and the target, and
// the target sees no request.
func TestRedirectRefused(t *testing.T) {
	var reached atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	t.Cleanup(elsewhere.Close)
	c, url := boundedServer(t, DefaultBounds, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/steal", http.StatusTemporaryRedirect)
	})
	_, err := c.Submit(context.Background(), Job{Executable: "sh", Environment: map[string]string{"SECRET": "s"}})
	want := "agent " + url + " redirected crank to " + elsewhere.URL + "/steal: crank does not follow an agent's redirects"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
}

// TestUploadReadSlowly: an agent that reads a little of the upload before each silence runs out
// (a small receive buffer makes crank's writes go on a few KiB at a time) held crank as long as it
// chose; an upload of a known size is read whole within UploadSilence plus its size at
// UploadRate, or fails naming the agent, the size and the bound.
func TestUploadReadSlowly(t *testing.T) {
	b := DefaultBounds
	b.UploadSilence, b.UploadRate = time.Second, 8<<20
	release := make(chan struct{})
	small := func(opt int) func(_, _ string, c syscall.RawConn) error {
		return func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 4096) })
			return errors.Join(err, serr)
		}
	}
	lc := net.ListenConfig{Control: small(syscall.SO_RCVBUF)}
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		buf := make([]byte, 8<<10)
		for {
			if _, err := io.ReadFull(r.Body, buf); err != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-release:
				return
			case <-tick.C:
			}
		}
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Control: small(syscall.SO_SNDBUF)}).DialContext
	cl, err := NewClient(srv.URL, "tok", &http.Client{Transport: tr}, WithBounds(b))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = cl.UploadSource(t.Context(), "j", "", bytes.NewReader(make([]byte, 4<<20)))
	took := time.Since(start)
	close(release)
	var be *BoundError
	want := "agent " + srv.URL + ": PUT /jobs/j/source: the agent did not read the upload's 4194304 bytes within 1.5s"
	if !errors.As(err, &be) || !strings.Contains(err.Error(), want) {
		t.Errorf("upload: %v, want %q", err, want)
	}
	if took > 10*time.Second {
		t.Errorf("upload ended after %s, want about 1.5 s", took)
	}
}
