package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Defaults shared by Options and the command line.
const (
	DefaultConnections = 64
	DefaultPipeline    = 1
	DefaultDuration    = 10 * time.Second
	DefaultTimeout     = 2 * time.Second
	DefaultMethod      = "GET"
	DefaultStreams     = 1
	// MaxPipeline bounds the requests a connection keeps in flight.
	MaxPipeline = 1024
	// MaxStreams bounds the HTTP/2 streams a connection keeps open.
	MaxStreams = 10000
)

// Protocols (Options.Protocol) and gRPC calls (Options.Call).
const (
	ProtocolHTTP1 = "http1" // HTTP/1.1, over TLS for https URLs
	ProtocolH2    = "h2"    // HTTP/2: h2c with prior knowledge for http URLs, ALPN h2 for https
	ProtocolGRPC  = "grpc"  // gRPC over HTTP/2 to grpc.testing.BenchmarkService
	CallUnary     = "unary"
	CallStreaming = "streaming"
)

// Options describe one load run.
type Options struct {
	// URL is the target, "http://host:port/path?query" or https. For gRPC the path names the
	// method; "/" (or none) is BenchmarkService's UnaryCall or StreamingCall, as Call says.
	URL string `json:"url"`
	// Protocol is http1 (the default), h2 or grpc.
	Protocol string `json:"protocol"`
	// Streams is the number of requests in flight per HTTP/2 connection (default 1); with gRPC
	// streaming calls, the streams kept open per connection, each with one message in flight.
	Streams int `json:"streams"`
	// Insecure skips the verification of the server's certificate (https URLs).
	Insecure bool `json:"insecure"`
	// Call is the gRPC call: unary (default) or streaming (ping-pong messages on long streams).
	Call string `json:"call,omitempty"`
	// ResponseSize is the payload size each gRPC request asks for (SimpleRequest.response_size).
	ResponseSize int `json:"responseSize,omitempty"`
	// RequestSize is the size of the payload each gRPC request carries (SimpleRequest.payload).
	RequestSize int `json:"requestSize,omitempty"`
	// Connections is the number of TCP connections kept open (default 64).
	Connections int `json:"connections"`
	// Threads sets GOMAXPROCS for the run when > 0; the previous value is restored after.
	Threads int `json:"threads"`
	// Pipeline is the number of requests written at once on a connection (default 1). Without a
	// rate, a connection writes Pipeline requests and waits for all their responses before the next.
	Pipeline int `json:"pipeline"`
	// Duration is the measured window (default 10s). Warmup runs before it, unrecorded.
	Duration time.Duration `json:"duration"`
	Warmup   time.Duration `json:"warmup"`
	// Rate is the total requests per second to send on a fixed schedule; 0 sends as fast as the
	// server answers.
	Rate int `json:"rate"`
	// Headers are extra request headers, "Name: value".
	Headers []string `json:"headers,omitempty"`
	Method  string   `json:"method"`
	Body    []byte   `json:"-"`
	// Timeout bounds the wait for a response (default 2s); a connection whose oldest request waited
	// longer is closed and its requests counted as timeouts.
	Timeout time.Duration `json:"timeout"`
	// StartAt, when set, is when the measured window begins (the warm-up ends): the run waits
	// until StartAt minus Warmup before it connects, so that generators on several machines
	// measure the same window. A time already past starts at once (the report's Start says when).
	StartAt time.Time `json:"startAt,omitzero"`
	// LatencyLog, when set, receives every measured response's latency in microseconds, one
	// decimal number a line (--latency-log).
	LatencyLog io.Writer `json:"-"`
	// IO is how cleartext HTTP/1.1 connections do their I/O: auto (the default: uring when the
	// kernel allows it, probed at start, else epoll with the reason said), uring (io_uring rings,
	// one per thread) or epoll (a goroutine per connection on the runtime's poller). TLS, h2 and
	// gRPC always take epoll. Both paths share the protocol logic; the counting tests run in both.
	IO string `json:"io,omitempty"`
	// probeIO replaces the io_uring probe (tests force the fallback with it); nil probes.
	probeIO func() error
}

// I/O modes (Options.IO, Report.IO).
const (
	IOAuto  = "auto"
	IOUring = "uring"
	IOEpoll = "epoll"
)

// MaxStartWait bounds how far ahead StartAt may be.
const MaxStartWait = 10 * time.Minute

// MarshalJSON writes the durations in seconds.
func (o Options) MarshalJSON() ([]byte, error) {
	type plain Options
	return json.Marshal(struct {
		plain
		Duration api.Duration `json:"duration"`
		Warmup   api.Duration `json:"warmup"`
		Timeout  api.Duration `json:"timeout"`
	}{plain(o), api.Duration(o.Duration), api.Duration(o.Warmup), api.Duration(o.Timeout)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (o *Options) UnmarshalJSON(b []byte) error {
	type plain Options
	var v struct {
		plain
		Duration api.Duration `json:"duration"`
		Warmup   api.Duration `json:"warmup"`
		Timeout  api.Duration `json:"timeout"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = Options(v.plain)
	o.Duration, o.Warmup, o.Timeout = v.Duration.Std(), v.Warmup.Std(), v.Timeout.Std()
	return nil
}

// withDefaults fills zero fields with the defaults.
func (o Options) withDefaults() Options {
	if o.Connections == 0 {
		o.Connections = DefaultConnections
	}
	if o.Pipeline == 0 {
		o.Pipeline = DefaultPipeline
	}
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Method == "" {
		o.Method = DefaultMethod
	}
	if o.Protocol == "" {
		o.Protocol = ProtocolHTTP1
	}
	if o.Streams == 0 {
		o.Streams = DefaultStreams
	}
	if o.Protocol == ProtocolGRPC && o.Call == "" {
		o.Call = CallUnary
	}
	if o.IO == "" {
		o.IO = IOAuto
	}
	return o
}

// Validate returns every problem with the options at once.
func (o Options) Validate() error {
	var errs []error
	if _, err := parseTarget(o.URL); err != nil {
		errs = append(errs, err)
	}
	check := func(bad bool, format string, args ...any) {
		if bad {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(o.Connections < 1, "connections must be at least 1, got %d", o.Connections)
	check(o.Threads < 0, "threads must not be negative, got %d", o.Threads)
	check(o.Pipeline < 1 || o.Pipeline > MaxPipeline, "pipeline must be 1..%d, got %d", MaxPipeline, o.Pipeline)
	check(o.Duration <= 0, "duration must be positive, got %s", o.Duration)
	check(o.Warmup < 0, "warmup must not be negative, got %s", o.Warmup)
	check(o.Rate < 0, "rate must not be negative, got %d", o.Rate)
	check(o.Timeout <= 0, "timeout must be positive, got %s", o.Timeout)
	check(time.Until(o.StartAt) > MaxStartWait, "start %s is more than %s ahead", o.StartAt.Format(time.RFC3339Nano), MaxStartWait)
	if o.Protocol == "" {
		o.Protocol = ProtocolHTTP1
	}
	if o.Protocol == ProtocolGRPC && o.Call == "" {
		o.Call = CallUnary
	}
	check(o.Protocol != ProtocolHTTP1 && o.Protocol != ProtocolH2 && o.Protocol != ProtocolGRPC,
		"protocol must be %s, %s or %s, got %q", ProtocolHTTP1, ProtocolH2, ProtocolGRPC, o.Protocol)
	check(o.Streams < 1 || o.Streams > MaxStreams, "streams must be 1..%d, got %d", MaxStreams, o.Streams)
	check(o.Protocol == ProtocolHTTP1 && o.Streams > 1, "streams apply to h2 and grpc; HTTP/1.1 pipelines (--pipeline)")
	check(o.Protocol != ProtocolHTTP1 && o.Pipeline > 1, "pipeline applies to HTTP/1.1; HTTP/2 multiplexes (--streams)")
	check(o.IO != "" && o.IO != IOAuto && o.IO != IOUring && o.IO != IOEpoll,
		"io must be %s, %s or %s, got %q", IOAuto, IOUring, IOEpoll, o.IO)
	check(o.IO == IOUring && (o.Protocol != ProtocolHTTP1 || strings.HasPrefix(o.URL, "https:")),
		"io uring applies to cleartext HTTP/1.1 (http:// URLs, protocol http1); TLS, h2 and grpc take epoll")
	check(o.Protocol == ProtocolGRPC && o.Call != CallUnary && o.Call != CallStreaming,
		"call must be %s or %s, got %q", CallUnary, CallStreaming, o.Call)
	check(o.Protocol != ProtocolGRPC && (o.Call != "" || o.ResponseSize != 0 || o.RequestSize != 0),
		"call, response size and request size apply to --protocol grpc")
	check(o.ResponseSize < 0 || o.ResponseSize > maxGRPCPayload, "response size must be 0..%d, got %d", maxGRPCPayload, o.ResponseSize)
	check(o.RequestSize < 0 || o.RequestSize > maxGRPCPayload, "request size must be 0..%d, got %d", maxGRPCPayload, o.RequestSize)
	check(!isToken(o.Method), "method %q is not an HTTP token", o.Method)
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		check(!ok || !isToken(strings.TrimSpace(name)) || strings.ContainsAny(value, "\r\n"),
			"header %q is not \"Name: value\"", h)
	}
	return errors.Join(errs...)
}

// target is a parsed URL: where to connect and what to put in the request line.
type target struct {
	tls        bool   // https
	addr       string // host:port to dial
	serverName string // TLS server name
	host       string // Host header value
	requestURI string
}

func parseTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, fmt.Errorf("url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return target{}, fmt.Errorf("url %q: scheme must be http or https", raw)
	}
	if u.Hostname() == "" {
		return target{}, fmt.Errorf("url %q: no host", raw)
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	default:
		port = "80"
	}
	return target{tls: u.Scheme == "https", addr: net.JoinHostPort(u.Hostname(), port), serverName: u.Hostname(),
		host: u.Host, requestURI: u.RequestURI()}, nil
}

// isToken reports whether s is a non-empty RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
