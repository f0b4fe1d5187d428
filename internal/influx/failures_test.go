package influx

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influxtest"
)

// TestPartialWriteSpoolsTheRest: InfluxDB takes the first batch and fails the second with a 503;
// only the unwritten lines are spooled, and pushing them to a real influxd completes the run.
func TestPartialWriteSpoolsTheRest(t *testing.T) {
	var calls atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
	}))
	defer flaky.Close()
	res := influxtest.Run{Start: t0, Session: "big", Arch: "x64", Partitions: "1", RPS: 1, Seconds: 3000}.Result()
	cfg := testConfig(t, flaky.URL, "crank")
	sum, err := Publish(context.Background(), cfg, res, nil)
	if err != nil || sum.Written != BatchSize || sum.Spooled != 6007-BatchSize || sum.PendingPoints != 6007-BatchSize {
		t.Fatalf("Publish: %v, %+v", err, sum)
	}
	if !strings.Contains(sum.Err.Error(), "status 503") || !strings.Contains(sum.Err.Error(), "lines 5001-6007") {
		t.Errorf("Err = %v, want the 503 and the failed lines", sum.Err)
	}

	srv := influxtest.Start(t)
	if err := srv.Exec(context.Background(), "CREATE DATABASE ref"); err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(context.Background(), testConfig(t, srv.URL, "ref"), res, nil); err != nil {
		t.Fatal(err)
	}
	// The first batch went to the flaky server: write it to the real one too, then push the rest.
	lines, _ := Lines(Points(res, Tags{}))
	w, closeClient, _ := testConfig(t, srv.URL, srv.DB).writer()
	defer closeClient()
	if n, err := writeLines(context.Background(), w, lines[:BatchSize], time.Minute); err != nil || n != BatchSize {
		t.Fatal(n, err)
	}
	env := map[string]string{"CRANK_INFLUX_URL": srv.URL, "CRANK_SPOOL_DIR": cfg.SpoolDir}
	var out strings.Builder
	if code := Main(context.Background(), nil, func(k string) string { return env[k] }, &out, &out); code != ExitOK {
		t.Fatalf("push: exit %d: %s", code, out.String())
	}
	if got, want := counts(t, srv.URL, srv.DB), counts(t, srv.URL, "ref"); got != want {
		t.Errorf("after push:\n%s\nwant:\n%s", got, want)
	}
}

// TestTimeoutSpools: an InfluxDB that never answers costs one timeout, then the run is spooled.
func TestTimeoutSpools(t *testing.T) {
	stop := make(chan struct{})
	var calls atomic.Int32
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body) // so the server notices when the client gives up
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer hang.Close()
	defer close(stop)
	cfg := testConfig(t, hang.URL, "crank")
	cfg.Timeout = 300 * time.Millisecond
	begin := time.Now()
	sum, err := Publish(context.Background(), cfg, influxtest.Run{Start: t0, Session: "s", Arch: "x64", Partitions: "1", RPS: 1}.Result(), nil)
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("Publish took %s with a 300ms timeout", took)
	}
	if err != nil || sum.Spooled != 47 || sum.Written != 0 || sum.Err == nil {
		t.Fatalf("Publish: %v, %+v", err, sum)
	}
	// A second run while it still hangs: the spooled run is tried once, the new one not at all.
	calls.Store(0)
	sum, err = Publish(context.Background(), cfg, influxtest.Run{Start: t0.Add(time.Hour), Session: "t", Arch: "x64", Partitions: "1", RPS: 1}.Result(), nil)
	if err != nil || sum.PendingRuns != 2 || sum.PendingPoints != 94 || calls.Load() != 1 {
		t.Fatalf("second Publish: %v, %+v, %d calls", err, sum, calls.Load())
	}
}
