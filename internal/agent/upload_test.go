package agent

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// slowSource streams a tar.gz of one-byte files into an upload: the first at once, each next one
// when next yields (a closed next: as fast as the reader takes them), max in all. It stops when
// the upload stops reading or stop is called.
func slowSource(next <-chan struct{}, max int) (body io.Reader, stop func()) {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer pw.Close()
		zw := gzip.NewWriter(pw)
		tw := tar.NewWriter(zw)
		for i := range max {
			if i > 0 {
				select {
				case <-next:
				case <-done:
					return
				}
			}
			if tw.WriteHeader(&tar.Header{Name: "f" + strconv.Itoa(i), Typeflag: tar.TypeReg, Mode: 0o644, Size: 1}) != nil {
				return
			}
			if _, err := tw.Write([]byte("x")); err != nil || tw.Flush() != nil || zw.Flush() != nil {
				return
			}
		}
		_ = tw.Close()
		_ = zw.Close()
	}()
	return pr, sync.OnceFunc(func() {
		close(done)
		pr.CloseWithError(io.ErrClosedPipe)
	})
}

// waitFile polls until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDeleteDuringUploadStopsIt: the audit's DELETE (or shutdown) during an upload answered
// Deleted while the extraction carried on and the folder stayed. Now the extraction stops
// before the folder is removed, the upload is answered 409 (or cut), and nothing comes back.
func TestDeleteDuringUploadStopsIt(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"delete", "shutdown"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			var logs testutil.SyncBuffer
			ta := newTestAgent(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			ctx := context.Background()
			id, err := ta.c.Submit(ctx, api.Job{Executable: "sh", Source: &api.Source{LocalFolder: "."}})
			if err != nil {
				t.Fatal(err)
			}
			next := make(chan struct{})
			body, closeBody := slowSource(next, 1_000_000)
			defer closeBody()
			uploaded := make(chan error, 1)
			go func() { uploaded <- ta.c.Upload(ctx, id, body) }()
			dir := filepath.Join(ta.Dir(), id)
			waitFile(t, filepath.Join(dir, "f0"))
			close(next) // from now on the files come as fast as the agent takes them
			if how == "delete" {
				if err := ta.c.Delete(ctx, id); err != nil {
					t.Fatal(err)
				}
			} else if err := ta.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("job folder after %s: %v, want it gone", how, err)
			}
			select {
			case err := <-uploaded:
				// 409, or a reset: the agent stops reading and closes while the client still sends
				if code := statusCode(err); code != http.StatusConflict && (err == nil || code != 0) {
					t.Errorf("upload: %v, want 409 or a closed connection", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the upload was not answered after its job went")
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("job folder came back: %v", err)
			}
			if strings.Contains(logs.String(), "level=ERROR") {
				t.Errorf("a client's race logged as an error:\n%s", logs.String())
			}
		})
	}
}

// TestStalledUploadBoundedByLease: a client that stops sending mid-upload held its job forever.
// Now it is cut off after a lease of silence (408), and the job's lease runs again.
func TestStalledUploadBoundedByLease(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Lease: 400 * time.Millisecond})
	ctx := context.Background()
	id, err := ta.c.Submit(ctx, api.Job{Executable: "sh", Source: &api.Source{LocalFolder: "."}})
	if err != nil {
		t.Fatal(err)
	}
	never := make(chan struct{}) // never closed: one file, then silence
	body, closeBody := slowSource(never, 2)
	defer closeBody()
	start := time.Now()
	err = ta.c.Upload(ctx, id, body)
	if statusCode(err) != http.StatusRequestTimeout {
		t.Fatalf("stalled upload: %v, want 408", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the stalled upload was cut after %s, lease 400ms", d)
	}
	waitNoFile(t, filepath.Join(ta.Dir(), id)) // nobody polls it: its lease runs out
}

// TestSlowUploadOutlivesTheTimeouts: an upload that keeps sending may take longer than the
// server's header, idle and read timeouts; only silence cuts it.
func TestSlowUploadOutlivesTheTimeouts(t *testing.T) {
	t.Parallel()
	a, url := serveAgent(t, Options{Lease: 2 * time.Second, HeaderTimeout: 100 * time.Millisecond, IdleTimeout: 100 * time.Millisecond})
	c, err := api.NewClient(url, a.Token(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id, err := c.Submit(ctx, api.Job{Executable: "sh", Source: &api.Source{LocalFolder: "."}})
	if err != nil {
		t.Fatal(err)
	}
	tick := make(chan struct{})
	go func() {
		for range 8 {
			time.Sleep(100 * time.Millisecond) // pacing the sender, not synchronising
			tick <- struct{}{}
		}
		close(tick)
	}()
	body, closeBody := slowSource(tick, 9)
	defer closeBody()
	start := time.Now()
	if err := c.Upload(ctx, id, body); err != nil {
		t.Fatalf("slow upload (%s): %v", time.Since(start), err)
	}
	if _, err := os.Stat(filepath.Join(a.Dir(), id, "f8")); err != nil {
		t.Errorf("last file: %v", err)
	}
}
