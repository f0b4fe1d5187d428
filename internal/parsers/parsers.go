// Package parsers defines how a load generator's output becomes measurements. Each tool has its
// own package (parsers/wrk, parsers/bombardier, ...) implementing Parser; parsers/registry builds
// the name -> parser table the agent uses.
package parsers

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Parser turns a tool's complete output into summary values keyed by measurement name
// (names and units as in internal/measure). Parse is a pure function of its input.
type Parser interface {
	// Name is the value of a job's `parser` key ("wrk").
	Name() string
	// Files are helper files the tool needs in the job's folder, by relative path
	// (wrk's scripts/pipeline.lua). May be nil.
	Files() map[string][]byte
	// Parse reads the tool's output. It returns an error that says what was wrong when the output
	// is not a successful run (the tool's own error message where it printed one).
	Parse(r io.Reader) (map[string]float64, error)
}

// NotMeasuredParser is a Parser that also says which figures the tool printed but not as a value
// that can be trusted (wrk's percentiles of a pipelined run, printed 0.00us), and why: they are
// reported as not measured, never dropped without a word.
type NotMeasuredParser interface {
	Parser
	NotMeasured(r io.Reader) map[string]string
}

// WarningParser is a Parser that also reads what the tool said about its run that the user must
// hear though its figures stand (the built-in generator taking epoll where io_uring was refused,
// and why): the agent reports each as a warning of the job.
type WarningParser interface {
	Parser
	Warnings(r io.Reader) []string
}

// TimelineParser is a Parser that also reads a per-second timeline from the tool's output: the
// agent records those samples (timestamped by the tool) beside the values Parse returns.
type TimelineParser interface {
	Parser
	Timeline(r io.Reader) ([]api.Measurement, error)
}

// LoadReporter is a Parser that also reads the generator's measured window from its output:
// when it began and ended, the rate asked and achieved, and its latency histogram, which the
// controller merges across the generators of one load (docs/DISTRIBUTED.md). A nil report
// with no error: the output has none.
type LoadReporter interface {
	Parser
	LoadReport(r io.Reader) (*api.LoadReport, error)
}

// EachLine calls add with every non-blank line of a tool's text output, trimmed (lines up to
// 1 MiB). An error from add is returned wrapped with the line.
func EachLine(r io.Reader, add func(line string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			if err := add(line); err != nil {
				return fmt.Errorf("line %q: %w", line, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading output: %w", err)
	}
	return nil
}

// FirstRequester is a Parser whose tool sends HTTP requests. As crank's load wrappers do, the
// agent times one request to the tool's URL before any load (http/firstrequest); FirstRequest
// says, from the measured run's arguments, where and how to send it, or why it cannot.
type FirstRequester interface {
	Parser
	FirstRequest(args []string) (Target, error)
}

// ErrNotHTTP is FirstRequest's answer for a run that sends no HTTP request (a gRPC run of a tool
// that also loads HTTP): http/firstrequest does not apply, as it does not to ghz.
var ErrNotHTTP = errors.New("the run sends no HTTP request")

// Target is where the first request goes: a GET of URL over HTTP/1.1, or over HTTP/2 when HTTP2
// (h2c with prior knowledge for http://, h2 by ALPN for https://). A tool that sends headers or a
// body sends them with its first request too: Header ("Name: value" lines as the tool takes
// them), and BodyFile (a file of the job's folder, sent with a POST), so that the first request
// is answered as the load's requests are (a gRPC server answers a bare GET 415).
type Target struct {
	URL      string
	HTTP2    bool
	Header   []string
	BodyFile string
	Body     []byte // BodyFile's content, read by the agent in the job's folder
}

// FirstURL is the first argument starting with "http" (any case), as crank's wrappers find the
// URL in their arguments.
func FirstURL(args []string) (string, error) {
	for _, a := range args {
		if len(a) >= 4 && strings.EqualFold(a[:4], "http") {
			return a, nil
		}
	}
	return "", fmt.Errorf("no argument starts with http: no URL to send the first request to")
}

// HasFlag reports whether args hold one of the flags (exactly, or as "flag=value").
func HasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
	}
	return false
}
