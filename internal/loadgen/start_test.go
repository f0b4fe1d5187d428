package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestStartAtHistogramAndLatencyLog: with a start given in the environment, the measured window
// begins at it (not before, and less than startAhead after: a start not honoured would begin
// 400 ms early, one waited for twice 400 ms late, while a timer waking late beside a busy core is
// tens of ms);
// the JSON output carries the run's histogram, whose count and p99 are those of the latency
// log's lines. Within 250 ms of the start is TestStartAtOnTime (make measure).
func TestStartAtHistogramAndLatencyLog(t *testing.T) {
	t.Parallel()
	if d := startAtRun(t); d > startAhead {
		t.Errorf("window began %s after the start asked, want 0..%s", d, startAhead)
	}
}

// startAhead is how far ahead of now startAtRun asks its start.
const startAhead = 400 * time.Millisecond

// startAtRun runs with a start startAhead from now given in the environment and a latency log,
// checks the window begins no earlier than the start and the output's histogram holds the log's
// latencies, and returns how long after the start the window began.
func startAtRun(t *testing.T) time.Duration {
	t.Helper()
	s := startServer(t, okReply)
	logPath := filepath.Join(t.TempDir(), "lat.txt")
	at := time.Now().Add(startAhead)
	env := func(k string) string {
		if k == StartAtEnv {
			return at.Format(time.RFC3339Nano)
		}
		return ""
	}
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code := Main(ctx, []string{s.url(), "-d", "300ms", "-c", "2", "--output", "json", "--latency-log", logPath}, env, &out, &errOut)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got jsonOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	d := got.Report.Start.Sub(at)
	if d < 0 {
		t.Errorf("window began %s before the start asked", -d)
	}
	h, err := hdrhistogram.Decode([]byte(got.Histogram))
	if err != nil {
		t.Fatalf("histogram %q: %v", got.Histogram, err)
	}
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(raw))
	logged := newHistogram()
	for _, l := range lines {
		v, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			t.Fatalf("latency log line %q: %v", l, err)
		}
		_ = logged.RecordValue(v)
	}
	if h.TotalCount() == 0 || h.TotalCount() != int64(len(lines)) || h.TotalCount() != got.Report.Requests {
		t.Errorf("histogram holds %d latencies, the log %d, the report %d requests", h.TotalCount(), len(lines), got.Report.Requests)
	}
	if h.ValueAtQuantile(99) != logged.ValueAtQuantile(99) {
		t.Errorf("p99 %d us in the output, %d us from the log", h.ValueAtQuantile(99), logged.ValueAtQuantile(99))
	}
	return d
}

func TestStartAtBad(t *testing.T) {
	t.Parallel()
	if _, err := parseArgs([]string{"http://h:1", "--start-at", "soon"}, noEnv); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("--start-at soon: %v", err)
	}
	late := time.Now().Add(time.Hour).Format(time.RFC3339)
	_, err := parseArgs([]string{"http://h:1"}, func(string) string { return late })
	if err == nil || !strings.Contains(err.Error(), "ahead") {
		t.Errorf("start an hour ahead: %v", err)
	}
}

func noEnv(string) string { return "" }
