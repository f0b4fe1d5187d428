package loadgen

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// checkExact fails unless the run's responses are exactly what the server counted, all sent
// requests were answered, and nothing failed.
func checkExact(t *testing.T, name string, rep *Report, server int64) {
	t.Helper()
	if rep.Requests == 0 || rep.Requests != server || rep.Sent != rep.Requests || rep.Errors.Total() != 0 || rep.Dropped != 0 {
		t.Errorf("%s: requests %d, sent %d, server counted %d, errors %s, dropped %d; want all equal, none failed",
			name, rep.Requests, rep.Sent, server, rep.Errors, rep.Dropped)
	}
}

func TestH2CCountsAgreeWithServer(t *testing.T) {
	t.Parallel()
	h := &h2Counter{}
	url := startH2C(t, h)
	rep := run(t, Options{URL: url, Protocol: ProtocolH2, Connections: 4, Streams: 16, Duration: 300 * time.Millisecond})
	checkExact(t, "h2c", rep, h.h2.Load())
	if h.h1.Load() != 0 || rep.Status["2xx"] != rep.Requests || rep.BadResponses != 0 {
		t.Errorf("HTTP/1.1 requests %d, status %v, bad %d: want every request over HTTP/2 and 2xx", h.h1.Load(), rep.Status, rep.BadResponses)
	}
	if rep.Bytes < rep.Requests*int64(len("Hello, World!")) {
		t.Errorf("bytes %d for %d responses", rep.Bytes, rep.Requests)
	}
}

func TestH2BadStatusCounted(t *testing.T) {
	t.Parallel()
	h := &h2Counter{}
	h.respond = func(w http.ResponseWriter, r *http.Request) {
		if h.h2.Load()%4 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}
	url := startH2C(t, h)
	rep := run(t, Options{URL: url, Protocol: ProtocolH2, Connections: 2, Streams: 8, Duration: 200 * time.Millisecond})
	checkExact(t, "h2c", rep, h.h2.Load())
	if rep.BadResponses == 0 || rep.BadResponses != rep.Status["5xx"] || rep.Status["2xx"]+rep.Status["5xx"] != rep.Requests {
		t.Errorf("bad %d, status %v of %d", rep.BadResponses, rep.Status, rep.Requests)
	}
}

func TestH2OverTLSWithALPN(t *testing.T) {
	t.Parallel()
	h := &h2Counter{}
	url := startTLS(t, h, true)
	rep := run(t, Options{URL: url, Protocol: ProtocolH2, Insecure: true, Connections: 2, Streams: 8, Duration: 500 * time.Millisecond})
	checkExact(t, "h2 over TLS", rep, h.h2.Load())
	if h.h1.Load() != 0 {
		t.Errorf("%d HTTP/1.1 requests, want none", h.h1.Load())
	}
}

func TestH2OverTLSWithoutH2(t *testing.T) {
	t.Parallel()
	url := startTLS(t, &h2Counter{}, false)
	rep := run(t, Options{URL: url, Protocol: ProtocolH2, Insecure: true, Connections: 1, Duration: 100 * time.Millisecond})
	// Go's server refuses the handshake; a server that ignores ALPN would finish it without h2.
	if rep.Requests != 0 || rep.Errors.Connect == 0 || !(strings.Contains(rep.ConnectError, "no application protocol") ||
		strings.Contains(rep.ConnectError, "did not negotiate h2")) {
		t.Errorf("requests %d, errors %s, first %q: want connect errors saying h2 was not negotiated",
			rep.Requests, rep.Errors, rep.ConnectError)
	}
}

func TestHTTPSKeepAlive(t *testing.T) {
	t.Parallel()
	h := &h2Counter{}
	url := startTLS(t, h, false)
	for _, depth := range []int{1, 8} {
		before := h.h1.Load()
		// Long enough that the TLS handshakes of a busy machine leave time to send.
		rep := run(t, Options{URL: url, Insecure: true, Connections: 4, Pipeline: depth, Duration: 500 * time.Millisecond})
		checkExact(t, "https", rep, h.h1.Load()-before)
	}
	if h.h2.Load() != 0 {
		t.Errorf("%d HTTP/2 requests, want HTTP/1.1 only", h.h2.Load())
	}
}

func TestHTTPSVerifiesCertificates(t *testing.T) {
	t.Parallel()
	url := startTLS(t, &h2Counter{}, false)
	rep := run(t, Options{URL: url, Connections: 1, Duration: 100 * time.Millisecond})
	if rep.Requests != 0 || !strings.Contains(rep.ConnectError, "certificate") {
		t.Errorf("requests %d, first connect error %q: want a certificate error without --insecure", rep.Requests, rep.ConnectError)
	}
}

func TestGRPCUnaryCountsAgreeWithServer(t *testing.T) {
	t.Parallel()
	svc := &benchService{}
	url := startGRPC(t, svc)
	rep := run(t, Options{URL: url, Protocol: ProtocolGRPC, Connections: 4, Streams: 32, ResponseSize: 100,
		RequestSize: 20, Duration: 300 * time.Millisecond})
	checkExact(t, "grpc unary", rep, svc.unary.Load())
	if rep.GRPCStatus["OK"] != rep.Requests || rep.BadResponses != 0 {
		t.Errorf("grpc status %v, bad %d of %d", rep.GRPCStatus, rep.BadResponses, rep.Requests)
	}
	if rep.Bytes < rep.Requests*100 {
		t.Errorf("bytes %d for %d responses of 100-byte payloads", rep.Bytes, rep.Requests)
	}
}

func TestGRPCStatusCountedAsBad(t *testing.T) {
	t.Parallel()
	svc := &benchService{failEvery: 5}
	url := startGRPC(t, svc)
	rep := run(t, Options{URL: url, Protocol: ProtocolGRPC, Connections: 2, Streams: 8, Duration: 200 * time.Millisecond})
	checkExact(t, "grpc unary", rep, svc.unary.Load())
	if rep.BadResponses != svc.failed.Load() || rep.GRPCStatus["Unavailable"] != svc.failed.Load() ||
		rep.GRPCStatus["OK"]+rep.BadResponses != rep.Requests {
		t.Errorf("bad %d, grpc status %v; the server failed %d of %d", rep.BadResponses, rep.GRPCStatus, svc.failed.Load(), rep.Requests)
	}
}

func TestGRPCStreamingCountsAgreeWithServer(t *testing.T) {
	t.Parallel()
	svc := &benchService{}
	url := startGRPC(t, svc)
	rep := run(t, Options{URL: url, Protocol: ProtocolGRPC, Call: CallStreaming, Connections: 3, Streams: 10,
		ResponseSize: 10, Duration: 300 * time.Millisecond})
	checkExact(t, "grpc streaming", rep, svc.messages.Load())
	if rep.GRPCStatus["OK"] != rep.Requests {
		t.Errorf("grpc status %v of %d", rep.GRPCStatus, rep.Requests)
	}
}
