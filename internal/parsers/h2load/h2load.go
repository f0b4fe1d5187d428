// Package h2load parses the text report of h2load (nghttp2's HTTP/2 and HTTP/1.1 benchmarking
// tool, https://nghttp2.org/documentation/h2load-howto.html), as of nghttp2 1.52:
//
//	h2load -c 28 -m 70 -t 2 -D 15 http://host:port/path        (h2c, prior knowledge)
//	h2load --h1 -c 28 -t 2 -D 15 http://host:port/path         (HTTP/1.1)
//
// It reads three lines of the report:
//
//	finished in 1.00s, 43007.00 req/s, 1.50MB/s
//	requests: 53760 total, 53840 started, 53760 done, 24578 succeeded, 29182 failed, 10753 errored, 0 timeout
//	time for request:       39us     11.85ms      1.48ms      1.21ms    78.33%
//
// and emits http/rps/mean (the req/s above), http/latency/mean and http/latency/max (the mean and
// max time for request, in milliseconds). h2load prints no latency percentiles, so none are
// emitted. The counts follow h2load's own definitions: "failed" counts every request that did not
// succeed, "errored" the subset that failed below HTTP (connection or stream errors), and
// "timeout" a subset of errored. So:
//
//	http/requests               done - errored (the responses; req/s is this over the duration)
//	http/requests/badresponses  failed - errored (responses whose status is not 2xx or 3xx)
//	http/requests/errors        errored (timeouts included)
//
// The "status codes" line is not used for bad responses: it also counts responses to requests
// still in flight when the run ended, which "done" does not.
//
// gRPC: h2load can send unary gRPC calls (-d a file holding the length-prefixed message,
// -H content-type:application/grpc -H te:trailers), but it only sees the HTTP status, which a gRPC
// server sets to 200 even for a failed call; the call's error is in the grpc-status trailer, which
// h2load ignores. Failed gRPC calls therefore count as good responses here (testdata/grpcstatus:
// every call ended with status 13, all "succeeded"); use ghz to count gRPC errors.
//
// A report without "finished in" is an error quoting h2load's own message, and so is a report of
// zero responses (a refused connection shows only as "0 done").
package h2load

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
)

// Parser parses h2load's text report. The zero value is ready to use.
type Parser struct{}

// Name is the job's `parser` value.
func (Parser) Name() string { return "h2load" }

// Files returns nil: h2load needs no helper file.
func (Parser) Files() map[string][]byte { return nil }

// report gathers what one h2load output holds.
type report struct {
	lines, unknown []string
	rps            *float64
	requests       string // the "requests:" line
	done, failed   float64
	errored        float64
	latMean        *float64
	latMax         float64
}

// Parse reads h2load's complete output.
func (Parser) Parse(r io.Reader) (map[string]float64, error) {
	var rep report
	if err := parsers.EachLine(r, rep.add); err != nil {
		return nil, fmt.Errorf("h2load: %w", err)
	}
	if err := rep.check(); err != nil {
		return nil, fmt.Errorf("h2load: %w", err)
	}
	m := map[string]float64{
		measure.RPS:          *rep.rps,
		measure.Requests:     rep.done - rep.errored,
		measure.BadResponses: rep.failed - rep.errored,
		measure.Errors:       rep.errored,
		measure.LatencyMean:  *rep.latMean,
		measure.LatencyMax:   rep.latMax,
	}
	for alias, name := range measure.ToolAliases("h2load") { // crank's h2load job's names too
		m[alias] = m[name]
	}
	return m, nil
}

var (
	reFinished = regexp.MustCompile(`^finished in \S+, (\S+) req/s, `)
	reRequests = regexp.MustCompile(`^requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, (\d+) failed, (\d+) errored, \d+ timeout$`)
	reRequest  = regexp.MustCompile(`^time for request:\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+\s+\S+$`)
	reOther    = regexp.MustCompile(`^(starting benchmark\.\.\.|spawning thread #|Warm-up |progress: |Application protocol: |Main benchmark duration |Stopped all clients|status codes: |traffic: |min\s+max\s+mean|time for connect:|time to 1st byte:|req/s\s+:)`)
)

// add records one trimmed, non-empty line.
func (rep *report) add(line string) error {
	rep.lines = append(rep.lines, line)
	if m := reFinished.FindStringSubmatch(line); m != nil {
		v, err := parsers.Number(m[1])
		rep.rps = &v
		return err
	}
	if m := reRequests.FindStringSubmatch(line); m != nil {
		rep.requests = line
		return numbers(m[1:], &rep.done, &rep.failed, &rep.errored)
	}
	if m := reRequest.FindStringSubmatch(line); m != nil {
		mean, err := parsers.Millis(m[3])
		if err != nil {
			return err
		}
		rep.latMean = &mean
		rep.latMax, err = parsers.Millis(m[2])
		return err
	}
	if !reOther.MatchString(line) {
		rep.unknown = append(rep.unknown, line)
	}
	return nil
}

// check says why the output is not a successful run, if it is not.
func (rep *report) check() error {
	switch {
	case len(rep.lines) == 0:
		return fmt.Errorf("empty output")
	case rep.rps == nil && len(rep.unknown) > 0:
		return fmt.Errorf("run failed: %s", rep.unknown[0])
	case rep.rps == nil:
		return fmt.Errorf("output ends before \"finished in\" (last line %q)", rep.lines[len(rep.lines)-1])
	case rep.requests == "":
		return fmt.Errorf("no \"requests:\" line in the report")
	case rep.latMean == nil:
		return fmt.Errorf("no \"time for request:\" line in the report")
	case rep.done-rep.errored <= 0:
		return fmt.Errorf("no responses (%s)", rep.requests)
	}
	return nil
}

// numbers parses each string into the matching destination.
func numbers(ss []string, dst ...*float64) error {
	for i, s := range ss {
		v, err := parsers.Number(s)
		if err != nil {
			return err
		}
		*dst[i] = v
	}
	return nil
}

// FirstRequest is h2load's request to its (first) URL over HTTP/2, or HTTP/1.1 with --h1: a GET,
// or a POST of its -d/--data file, with its -H/--header headers, as h2load sends each request.
func (Parser) FirstRequest(args []string) (parsers.Target, error) {
	u, err := parsers.FirstURL(args)
	t := parsers.Target{URL: u, HTTP2: !parsers.HasFlag(args, "--h1")}
	for i := 0; i < len(args); i++ {
		name, value, inline := args[i], "", false
		if strings.HasPrefix(name, "--") {
			name, value, inline = strings.Cut(name, "=")
		}
		if !inline {
			if i+1 >= len(args) {
				break
			}
			value = args[i+1]
		}
		switch name {
		case "-H", "--header":
			t.Header = append(t.Header, value)
		case "-d", "--data":
			t.BodyFile = value
		default:
			continue
		}
		if !inline {
			i++
		}
	}
	return t, err
}
