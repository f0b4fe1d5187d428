// Package bombardier parses the JSON result of bombardier (https://github.com/codesenberg/bombardier)
// v1.2.6:
//
//	bombardier -c 256 -d 15s -l -o json -p r http://host:port/path
//
// -o json -p r prints the result alone; other print parts (-p i,r) are skipped up to the JSON.
// -l adds the latency percentiles (50/75/90/95/99 are emitted); without it only mean and max latency
// are. bombardier reports latencies in microseconds; they are converted to milliseconds. Its
// latency statistics include the time spent on failed requests.
//
// bombardier counts a request that failed (connection refused, closed, timed out) both in its
// "errors" list and in the "others" status bucket, so:
//
//	http/requests/errors        sum of the errors list
//	http/requests               responses: req1xx + ... + req5xx + others - errors
//	http/requests/badresponses  responses outside 2xx/3xx: req1xx + req4xx + req5xx + others - errors
//	http/rps/mean               responses / timeTakenSeconds
//	bombardier/rps/mean         bombardier's own rps.mean (the mean of its per-interval rates,
//	                            errors included)
//	http/rps/max                bombardier's rps.max, the highest per-interval rate
//	http/throughput             bytesRead / timeTakenSeconds in MiB/s, as crank's bombardier job
//	load/asked-rate             the spec's rate (-r), when it has one: the rate asked, which
//	                            http/rps/mean may fall short of (load/rate-reached)
//
// Each is also written under crank's bombardier name (bombardier/requests, ...: measure.Aliases).
//
// A result with no responses at all is an error quoting bombardier's first error, and so is an
// output without the JSON result (bombardier's own message, such as a flag error).
package bombardier

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
)

// Parser parses bombardier's JSON result. The zero value is ready to use.
type Parser struct{}

// Name is the job's `parser` value.
func (Parser) Name() string { return "bombardier" }

// Files returns nil: bombardier needs no helper file.
func (Parser) Files() map[string][]byte { return nil }

// result is the part of bombardier's JSON output that is read.
type result struct {
	BytesRead        float64 `json:"bytesRead"`
	TimeTakenSeconds float64 `json:"timeTakenSeconds"`
	Req1xx           float64 `json:"req1xx"`
	Req2xx           float64 `json:"req2xx"`
	Req3xx           float64 `json:"req3xx"`
	Req4xx           float64 `json:"req4xx"`
	Req5xx           float64 `json:"req5xx"`
	Others           float64 `json:"others"`
	Errors           []struct {
		Description string  `json:"description"`
		Count       float64 `json:"count"`
	} `json:"errors"`
	Latency *struct {
		Mean        float64            `json:"mean"`
		Max         float64            `json:"max"`
		Percentiles map[string]float64 `json:"percentiles"`
	} `json:"latency"`
	RPS *struct {
		Mean float64 `json:"mean"`
		Max  float64 `json:"max"`
	} `json:"rps"`
	askedRate float64 // the spec's rate (-r); 0: none
}

// Parse reads bombardier's complete output.
func (Parser) Parse(r io.Reader) (map[string]float64, error) {
	res, err := decode(r)
	if err != nil {
		return nil, fmt.Errorf("bombardier: %w", err)
	}
	m, err := res.measurements()
	if err != nil {
		return nil, fmt.Errorf("bombardier: %w", err)
	}
	return m, nil
}

// decode finds the JSON document in the output and reads its result.
func decode(r io.Reader) (*result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading output: %w", err)
	}
	start := bytes.Index(data, []byte(`{"spec":`))
	if start < 0 {
		if line := firstLine(data); line != "" {
			return nil, fmt.Errorf("no JSON result in output: %s", line)
		}
		return nil, fmt.Errorf("empty output")
	}
	var doc struct {
		Spec struct {
			Rate float64 `json:"rate"`
		} `json:"spec"`
		Result *result `json:"result"`
	}
	if err := json.NewDecoder(bytes.NewReader(data[start:])).Decode(&doc); err != nil {
		return nil, fmt.Errorf("JSON result: %w", err)
	}
	if doc.Result == nil {
		return nil, fmt.Errorf("JSON output has no \"result\"")
	}
	doc.Result.askedRate = doc.Spec.Rate
	return doc.Result, nil
}

func (res *result) measurements() (map[string]float64, error) {
	var errs float64
	for _, e := range res.Errors {
		errs += e.Count
	}
	codes := res.Req1xx + res.Req2xx + res.Req3xx + res.Req4xx + res.Req5xx + res.Others
	responses := math.Max(codes-errs, 0)
	switch {
	case responses == 0 && len(res.Errors) > 0:
		return nil, fmt.Errorf("no responses, %v errors (%s)", errs, res.Errors[0].Description)
	case responses == 0:
		return nil, fmt.Errorf("no responses")
	case res.Latency == nil || res.RPS == nil:
		return nil, fmt.Errorf("result has no latency or rps statistics")
	case res.TimeTakenSeconds <= 0:
		return nil, fmt.Errorf("result has no time taken")
	}
	m := map[string]float64{
		measure.BombardierRPS: res.RPS.Mean,
		measure.RPS:           math.Round(responses/res.TimeTakenSeconds*100) / 100,
		measure.Requests:      responses,
		measure.BadResponses:  res.Req1xx + res.Req4xx + res.Req5xx + math.Max(res.Others-errs, 0),
		measure.Errors:        errs,
		measure.LatencyMean:   millis(res.Latency.Mean),
		measure.LatencyMax:    millis(res.Latency.Max),
		measure.RPSMax:        res.RPS.Max,
		measure.Throughput:    math.Round(res.BytesRead/res.TimeTakenSeconds/(1<<20)*100) / 100,
	}
	pcts := map[string]string{"50": measure.Latency50, "75": measure.Latency75, "90": measure.Latency90,
		"95": measure.Latency95, "99": measure.Latency99}
	for pct, name := range pcts {
		if v, ok := res.Latency.Percentiles[pct]; ok {
			m[name] = millis(v)
		}
	}
	if res.askedRate > 0 {
		m[measure.LoadAskedRate] = res.askedRate
	}
	for alias, name := range measure.ToolAliases("bombardier") { // crank's bombardier job's names too
		if v, ok := m[name]; ok {
			m[alias] = v
		}
	}
	return m, nil
}

// millis converts bombardier's microseconds to milliseconds, rounded to the nanosecond.
func millis(us float64) float64 {
	return math.Round(us*1e3) / 1e6
}

// firstLine is the first non-empty line of data, trimmed.
func firstLine(data []byte) string {
	for line := range bytes.Lines(data) {
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return string(t)
		}
	}
	return ""
}

// FirstRequest is a GET of bombardier's URL, over HTTP/2 when it runs with --http2.
func (Parser) FirstRequest(args []string) (parsers.Target, error) {
	u, err := parsers.FirstURL(args)
	return parsers.Target{URL: u, HTTP2: parsers.HasFlag(args, "--http2")}, err
}
