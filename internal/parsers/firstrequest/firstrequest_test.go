package firstrequest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/parsers/firstrequest"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestMeasureTimesTheFirstResponse: a server that holds its first response back 300 ms is
// timed at 300 ms or a little more, over HTTP/1.1 and over h2c.
func TestMeasureTimesTheFirstResponse(t *testing.T) {
	const delay = 300 * time.Millisecond
	for _, h2 := range []bool{false, true} {
		addr, n := testutil.ServeSlowFirst(t, delay)
		res, err := firstrequest.Measure(context.Background(), parsers.Target{URL: "http://" + addr + "/", HTTP2: h2})
		if err != nil {
			t.Fatalf("http2=%v: %v", h2, err)
		}
		if ms := res.Millis(); ms < 300 || ms > 300+1000 {
			t.Errorf("http2=%v: first request %.1f ms, want 300 to 1300", h2, ms)
		}
		if res.Status != http.StatusOK || n.Load() != 1 {
			t.Errorf("http2=%v: status %d, %d requests served, want 200 and 1", h2, res.Status, n.Load())
		}
	}
}

// TestMeasureTLSSelfSigned: a self-signed https server is timed (certificates are not checked,
// as in crank), over HTTP/1.1 and h2 by ALPN.
func TestMeasureTLSSelfSigned(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Proto", r.Proto)
		w.WriteHeader(http.StatusTeapot)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	for _, h2 := range []bool{false, true} {
		res, err := firstrequest.Measure(context.Background(), parsers.Target{URL: srv.URL, HTTP2: h2})
		if err != nil || res.Status != http.StatusTeapot || res.Elapsed <= 0 {
			t.Errorf("http2=%v: %+v, %v", h2, res, err)
		}
	}
}

// TestMeasureNoAnswer: a refused connection and a bad URL are errors naming the URL, not values.
func TestMeasureNoAnswer(t *testing.T) {
	port := testutil.FreePorts(t, 1)[0]
	for _, u := range []string{"http://127.0.0.1:" + strconv.Itoa(port) + "/", "http://[::1"} {
		res, err := firstrequest.Measure(context.Background(), parsers.Target{URL: u})
		if err == nil || !strings.Contains(err.Error(), "first request to") || res.Elapsed != 0 {
			t.Errorf("%s: %+v, %v; want an error and no value", u, res, err)
		}
	}
}

// TestMeasureCancelled: a cancelled context ends a request the server does not answer.
func TestMeasureCancelled(t *testing.T) {
	addr, _ := testutil.ServeSlowFirst(t, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := firstrequest.Measure(ctx, parsers.Target{URL: "http://" + addr + "/"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first request past its context's deadline: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelled request returned after %s", d)
	}
}
