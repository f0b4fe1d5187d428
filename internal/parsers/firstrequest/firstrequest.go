// Package firstrequest times the first request a load job sends, as crank's load wrappers
// (Microsoft.Crank.Jobs.Wrk, .Bombardier, .H2Load) do before their load: one GET on a fresh
// connection (with the tool's headers and body, when it sends some), from sending until the whole
// response is read, reported as http/firstrequest in
// milliseconds. Certificates are not checked (the servers under test use self-signed ones), and
// any status counts as an answer, as in crank; a request that gets no answer is an error, never
// a value.
package firstrequest

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/parsers"
)

// Timeout bounds the first request, as crank's wrappers bound theirs.
const Timeout = 30 * time.Second

// Result is one timed first request.
type Result struct {
	Elapsed time.Duration
	Status  int
}

// Millis is the elapsed time in milliseconds, as http/firstrequest is recorded.
func (r Result) Millis() float64 { return float64(r.Elapsed.Microseconds()) / 1000 }

// Measure sends t's request (a GET, or a POST of its body when it has a body file) with its
// headers and times it until the response's body is read.
func Measure(ctx context.Context, t parsers.Target) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := newRequest(ctx, t)
	if err != nil {
		return Result{}, fmt.Errorf("first request to %q: %w", t.URL, err)
	}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // servers under test are self-signed
		DisableKeepAlives: true,
		Protocols:         new(http.Protocols),
	}
	if t.HTTP2 {
		tr.Protocols.SetHTTP2(true)
		tr.Protocols.SetUnencryptedHTTP2(true)
	} else {
		tr.Protocols.SetHTTP1(true)
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // the first answer is the one timed
	}}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("first request to %s: %w", t.URL, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return Result{}, fmt.Errorf("first request to %s: reading the response: %w", t.URL, err)
	}
	return Result{Elapsed: time.Since(start), Status: resp.StatusCode}, nil
}

// newRequest is t's request: its method, headers ("Name: value") and body.
func newRequest(ctx context.Context, t parsers.Target) (*http.Request, error) {
	method, body := http.MethodGet, io.Reader(nil)
	if t.BodyFile != "" || t.Body != nil {
		method, body = http.MethodPost, bytes.NewReader(t.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.URL, body)
	if err != nil {
		return nil, err
	}
	for _, h := range t.Header {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("header %q: want Name: value", h)
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if strings.EqualFold(name, "host") {
			req.Host = value
			continue
		}
		req.Header.Add(name, value)
	}
	return req, nil
}
