package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What a hostile agent answers cannot take crank's memory past maxCrankRSS nor hold it past the
// answer's bound (issue 41, MEDIUM 4 and 5): each test runs the real crank against the hostile-agent
// harness under /usr/bin/time and reads crank's peak resident memory.

const (
	hostileToken = "hostile-token"
	maxCrankRSS  = 300 << 20
)

// crankPeak runs crank under /usr/bin/time with a profile sending both services to url, and returns
// its result, its peak resident memory in bytes and how long it took.
func crankPeak(t *testing.T, url string, args ...string) (runResult, int64, time.Duration) {
	t.Helper()
	argv := append([]string{"/usr/bin/time", "-f", "crank-maxrss-kb=%M", filepath.Join(testEnv.bins, "crank"),
		"--config", hostileConfig(t, url), "--scenario", "shell", "--profile", "hostile"}, args...)
	start := time.Now()
	r := crankCommand(t, 3*time.Minute, []string{"CRANK_AGENT_TOKEN=" + hostileToken}, argv...)
	took := time.Since(start)
	m := regexp.MustCompile(`crank-maxrss-kb=(\d+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no peak memory from /usr/bin/time:\n%s", r.stderr)
	}
	kb, _ := strconv.ParseInt(m[1], 10, 64)
	t.Logf("crank: exit %d, peak RSS %d MB, %s", r.code, kb>>10, took.Round(100*time.Millisecond))
	if kb<<10 >= maxCrankRSS {
		t.Errorf("crank's peak RSS %d MB, want < %d MB", kb>>10, maxCrankRSS>>20)
	}
	return r, kb << 10, took
}

// stream answers 200 and writes chunk until the client goes or limit bytes are written, after head.
func stream(w http.ResponseWriter, r *http.Request, head string, chunk []byte, limit int64) {
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, head)
	for n := int64(0); n < limit && r.Context().Err() == nil; n += int64(len(chunk)) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// TestHostileOutputStreamBounded: an agent whose /output never ends (it drove crank to 24 GB)
// gives crank at most MaxSavedOutput of it to keep, and crank says so naming the agent.
func TestHostileOutputStreamBounded(t *testing.T) {
	line := []byte(strings.Repeat("x", 1023) + "\n")
	url := hostileAgent(t, hostileToken, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/output") {
			return false
		}
		stream(w, r, "", line, 64<<30)
		return true
	})
	dir := t.TempDir()
	r, _, _ := crankPeak(t, url, "--output-dir", dir)
	mustContain(t, "stderr", r.stderr, "agent "+url, "output longer than 67108864 bytes")
	fi, err := os.Stat(filepath.Join(dir, "load.output.log"))
	if err != nil || fi.Size() > 64<<20 {
		t.Errorf("load.output.log: %v, %v; want at most 64 MiB", fi, err)
	}
}

// TestHostileAnswersBounded: /measurements of 740 MB took crank to 1.8 GB, /info of 544 MB to
// 1.6 GB; now each answer is refused past its bound, naming the agent, the request and the bound.
func TestHostileAnswersBounded(t *testing.T) {
	for _, c := range []struct {
		path, head string
		chunk      []byte
		size       int64
		want       []string
	}{
		{"/measurements", `{"metadata":[],"measurements":[`, []byte(`{"name":"benchmarks/cpu","timestamp":"2026-01-01T00:00:00Z","value":1},`), 740 << 20,
			[]string{"/measurements", "answer larger than 33554432 bytes"}},
		{"/info", `{"hardware":"`, []byte(strings.Repeat("x", 64<<10)), 544 << 20,
			[]string{"GET /info", "answer larger than 4194304 bytes"}},
	} {
		t.Run(strings.Trim(c.path, "/"), func(t *testing.T) {
			url := hostileAgent(t, hostileToken, func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, c.path) {
					return false
				}
				stream(w, r, c.head, c.chunk, c.size)
				return true
			})
			r, _, _ := crankPeak(t, url)
			if r.code == 0 {
				t.Errorf("crank exited 0 with an answer it could not read")
			}
			mustContain(t, "stderr", r.stderr, append([]string{"agent " + url}, c.want...)...)
		})
	}
}

// TestHostileTrickleBounded: an agent that answers /info a byte a second holds crank no longer than
// the answer's bound (8 s), and the error names the agent and the bound.
func TestHostileTrickleBounded(t *testing.T) {
	url := hostileAgent(t, hostileToken, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/info" {
			return false
		}
		w.WriteHeader(http.StatusOK)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for range 300 {
			if _, err := w.Write([]byte(" ")); err != nil {
				return true
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return true
			case <-tick.C:
			}
		}
		return true
	})
	r, _, took := crankPeak(t, url)
	if r.code == 0 {
		t.Errorf("crank exited 0 with an /info it never got")
	}
	mustContain(t, "stderr", r.stderr, "agent "+url, "GET /info", "no whole answer within 8s")
	if took > 30*time.Second {
		t.Errorf("crank took %s against a trickling agent, want the 8 s bound (and its start)", took)
	}
}

// TestHostileUploadNeverAnswered: MEDIUM 5. An agent that reads the upload and never answers held
// crank forever; now crank gives up 30 s after the upload's end, naming the agent and the bound.
func TestHostileUploadNeverAnswered(t *testing.T) {
	url := hostileAgent(t, hostileToken, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut {
			return false
		}
		_, _ = io.Copy(io.Discard, r.Body)
		select { // until crank gives up (or the test's own bound)
		case <-r.Context().Done():
		case <-time.After(3 * time.Minute):
		}
		return true
	})
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _, took := crankPeak(t, url, "--application.source.localFolder", src)
	if r.code == 0 {
		t.Errorf("crank exited 0 with an upload never answered")
	}
	mustContain(t, "stderr", r.stderr, "agent "+url, "PUT /jobs/", "no answer within 30s of the upload's end")
	if took > 60*time.Second {
		t.Errorf("crank took %s against an agent that never answers the upload, want about 30 s", took)
	}
}
