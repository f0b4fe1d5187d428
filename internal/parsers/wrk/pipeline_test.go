package wrk_test

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/wrk"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// batchServer is a minimal HTTP/1.1 server on 127.0.0.1 that answers every complete GET it reads
// and records the largest number of requests one read brought.
type batchServer struct {
	ln       net.Listener
	wg       sync.WaitGroup
	requests atomic.Int64
	maxBatch atomic.Int64
}

const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 13\r\nContent-Type: text/plain\r\n\r\nHello, World!"

func startBatchServer(t *testing.T) *batchServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &batchServer{ln: ln}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *batchServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go s.serve(c)
	}
}

// serve answers requests until the client closes; requests carry no body.
func (s *batchServer) serve(c net.Conn) {
	defer s.wg.Done()
	defer c.Close()
	var pending []byte
	buf := make([]byte, 64*1024)
	w := bufio.NewWriter(c)
	for {
		n, err := c.Read(buf)
		pending = append(pending, buf[:n]...)
		var batch int64
		for end := bytes.Index(pending, headerEnd); end >= 0; end = bytes.Index(pending, headerEnd) {
			pending = pending[end+len(headerEnd):]
			batch++
			w.WriteString(okResponse)
		}
		s.record(batch)
		if err != nil || w.Flush() != nil {
			return
		}
	}
}

var headerEnd = []byte("\r\n\r\n")

// record counts the requests one read brought.
func (s *batchServer) record(batch int64) {
	s.requests.Add(batch)
	for {
		m := s.maxBatch.Load()
		if batch <= m || s.maxBatch.CompareAndSwap(m, batch) {
			return
		}
	}
}

// TestPipelineScriptWithWrk runs the real wrk for one second with the script Files provides and
// checks that each write carries DEPTH requests and that the report parses.
func TestPipelineScriptWithWrk(t *testing.T) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		testutil.Missing(t, "wrk is not installed (apt-get install wrk)")
	}
	const depth = 4
	s := startBatchServer(t)
	dir := t.TempDir()
	for name, data := range (wrk.Parser{}).Files() {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url := "http://" + s.ln.Addr().String() + "/plaintext"
	cmd := exec.CommandContext(ctx, bin, "-c", "2", "-t", "1", "-d", "1s", "--latency",
		"-s", wrk.PipelineScript, url, "--", strconv.Itoa(depth))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("wrk: %v\n%s", err, out)
	}
	got, err := wrk.Parser{}.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, out)
	}
	if got[measure.WrkRPS] <= 0 || got[measure.Requests] <= 0 || got[measure.Errors] != 0 {
		t.Errorf("rps %v, requests %v, errors %v; want rps and requests > 0, no errors\n%s",
			got[measure.WrkRPS], got[measure.Requests], got[measure.Errors], out)
	}
	if m := s.maxBatch.Load(); m != depth {
		t.Errorf("largest batch in one read = %d requests, want %d", m, depth)
	}
	if n := s.requests.Load(); float64(n) < got[measure.Requests] {
		t.Errorf("server answered %d requests, wrk reports %v", n, got[measure.Requests])
	}
}
