// Package ghz parses the JSON report of ghz (https://ghz.sh), the gRPC load generator, v0.120:
//
//	ghz --insecure --call pkg.Service.Method -c 50 -z 15s -O json host:port
//
// (-O pretty works too.) It emits:
//
//	grpc/rps/mean, http/rps/mean   "rps": calls per second, calls that ended in an error included
//	http/requests                  "count": every call
//	http/requests/errors           calls whose status is not OK ("statusCodeDistribution")
//	http/latency/mean              "average", over every call
//	http/latency/50|75|90|95|99, max  "latencyDistribution" and "slowest", which ghz computes over
//	                               the calls that ended OK only (unless run with --count-errors);
//	                               absent when no call ended OK
//
// ghz reports durations in nanoseconds; they are converted to milliseconds. There is no
// http/requests/badresponses: a gRPC error status is counted as an error. A report of zero calls is
// an error, and so is an output without the JSON report: ghz then printed its own message
// ("rpc error: code = Unavailable desc = connection error: ...", "Symbol not found: ..."), which
// the error quotes.
package ghz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// Parser parses ghz's JSON report. The zero value is ready to use.
type Parser struct{}

// Name is the job's `parser` value.
func (Parser) Name() string { return "ghz" }

// Files returns nil: ghz needs no helper file.
func (Parser) Files() map[string][]byte { return nil }

// report is the part of ghz's JSON report that is read; durations are in nanoseconds.
type report struct {
	Count          float64            `json:"count"`
	Average        float64            `json:"average"`
	Slowest        float64            `json:"slowest"`
	RPS            float64            `json:"rps"`
	StatusCodeDist map[string]float64 `json:"statusCodeDistribution"`
	Latencies      []struct {
		Percentage int     `json:"percentage"`
		Latency    float64 `json:"latency"`
	} `json:"latencyDistribution"`
}

// Parse reads ghz's complete output.
func (Parser) Parse(r io.Reader) (map[string]float64, error) {
	rep, err := decode(r)
	if err != nil {
		return nil, fmt.Errorf("ghz: %w", err)
	}
	if rep.Count == 0 {
		return nil, fmt.Errorf("ghz: no calls in the report")
	}
	return rep.measurements(), nil
}

// decode reads the JSON report, which starts at the first line opening with "{".
func decode(r io.Reader) (*report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading output: %w", err)
	}
	first, offset := "", 0
	for line := range bytes.Lines(data) {
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] == '{' {
			var rep report
			if err := json.NewDecoder(bytes.NewReader(data[offset:])).Decode(&rep); err != nil {
				return nil, fmt.Errorf("JSON report: %w", err)
			}
			return &rep, nil
		}
		if first == "" {
			first = string(t)
		}
		offset += len(line)
	}
	if first == "" {
		return nil, fmt.Errorf("empty output")
	}
	return nil, fmt.Errorf("no JSON report in output: %s", first)
}

func (rep *report) measurements() map[string]float64 {
	var errs float64
	for status, n := range rep.StatusCodeDist {
		if status != "OK" {
			errs += n
		}
	}
	m := map[string]float64{
		measure.GRPCRPS:     rep.RPS,
		measure.RPS:         rep.RPS,
		measure.Requests:    rep.Count,
		measure.Errors:      errs,
		measure.LatencyMean: millis(rep.Average),
	}
	if len(rep.Latencies) == 0 {
		return m
	}
	m[measure.LatencyMax] = millis(rep.Slowest)
	names := map[int]string{50: measure.Latency50, 75: measure.Latency75, 90: measure.Latency90, 95: measure.Latency95, 99: measure.Latency99}
	for _, l := range rep.Latencies {
		if name, ok := names[l.Percentage]; ok {
			m[name] = millis(l.Latency)
		}
	}
	return m
}

// millis converts ghz's nanoseconds to milliseconds.
func millis(ns float64) float64 {
	return math.Round(ns) / 1e6
}
