package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
)

// client is a load generator: how to run it and how to read the responses it counted.
type client struct {
	Name string
	// Args builds the command line (without the pinning prefix); ok is false when the client
	// cannot run in that mode (bombardier does not pipeline).
	Args  func(url string, pipeline, seconds, connections int) (argv []string, ok bool)
	Parse func(out []byte) (int64, error)
}

// modeName names a pipelining mode in the tables.
func modeName(pipeline int) string {
	if pipeline > 1 {
		return fmt.Sprintf("pipelined %d", pipeline)
	}
	return "unpipelined"
}

// wrkClient runs wrk with one thread, pipelining with the wrk driver's Lua script.
func wrkClient(wrk, lua string) client {
	return client{
		Name: "wrk",
		Args: func(url string, pipeline, seconds, conns int) ([]string, bool) {
			argv := []string{wrk, "-c", strconv.Itoa(conns), "-t", "1", "-d", fmt.Sprintf("%ds", seconds)}
			if pipeline > 1 {
				return append(argv, "-s", lua, url, "--", strconv.Itoa(pipeline)), true
			}
			return append(argv, url), true
		},
		Parse: parseRequestsIn,
	}
}

// crankLoadClient runs the built-in generator (`crank load`) with one thread, and extra flags.
func crankLoadClient(crank string, extra ...string) client {
	return client{
		Name: "crank load",
		Args: func(url string, pipeline, seconds, conns int) ([]string, bool) {
			argv := []string{crank, "load", url, "-c", strconv.Itoa(conns), "-t", "1",
				"-p", strconv.Itoa(pipeline), "-d", strconv.Itoa(seconds)}
			return append(argv, extra...), true
		},
		Parse: parseRequestsIn,
	}
}

// bombardierClient runs bombardier (fasthttp, latency percentiles on, JSON result).
func bombardierClient(bombardier string) client {
	return client{
		Name: "bombardier",
		Args: func(url string, pipeline, seconds, conns int) ([]string, bool) {
			if pipeline > 1 {
				return nil, false
			}
			return []string{bombardier, "-c", strconv.Itoa(conns), "-d", fmt.Sprintf("%ds", seconds),
				"-l", "-p", "r", "-o", "json", url}, true
		},
		Parse: parseBombardier,
	}
}

var (
	requestsInRE = regexp.MustCompile(`(?m)^\s*(\d+) requests in `)
	non2xxRE     = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses: (\d+)`)
)

// parseRequestsIn reads the response count of wrk's or crank load's text summary
// ("  319456 requests in 2.00s, 49.05MB read"); answers other than 2xx/3xx make it an error.
func parseRequestsIn(out []byte) (int64, error) {
	m := requestsInRE.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no %q line in the output: %s", "N requests in", tail(out))
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("request count %q: %w", m[1], err)
	}
	if bad := non2xxRE.FindSubmatch(out); bad != nil {
		return n, fmt.Errorf("%s responses were not 2xx or 3xx", bad[1])
	}
	return n, nil
}

// parseBombardier reads bombardier's JSON result (-p r -o json): the responses by status class.
func parseBombardier(out []byte) (int64, error) {
	var doc struct {
		Result *struct {
			Req1xx, Req2xx, Req3xx, Req4xx, Req5xx, Others int64
		} `json:"result"`
	}
	start := bytes.IndexByte(out, '{')
	if start < 0 {
		return 0, fmt.Errorf("no JSON in bombardier's output: %s", tail(out))
	}
	if err := json.Unmarshal(out[start:], &doc); err != nil {
		return 0, fmt.Errorf("bombardier's JSON: %w", err)
	}
	r := doc.Result
	if r == nil {
		return 0, errors.New("bombardier's JSON has no result")
	}
	n := r.Req1xx + r.Req2xx + r.Req3xx + r.Req4xx + r.Req5xx
	if bad := r.Req1xx + r.Req4xx + r.Req5xx; bad > 0 {
		return n, fmt.Errorf("%d responses were not 2xx or 3xx", bad)
	}
	return n, nil
}

// tail is the end of a tool's output, for error messages.
func tail(out []byte) string {
	const max = 300
	out = bytes.TrimSpace(out)
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return strconv.Quote(string(out))
}
