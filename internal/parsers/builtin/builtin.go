// Package builtin parses the output of the built-in load generator (internal/loadgen):
//
//	crank load http://host:port/path --connections 64 --duration 15 --output json
//
// With --output json, `crank load` prints one line of JSON on stdout, {"results": {...},
// "report": {...}} with the results named as the wrk driver names them plus builtin/rps/mean, or
// {"error": "..."} when the run failed; its readable summary goes to stderr. The agent's output
// combines both streams, so Parse looks for the JSON object among the lines. It also reads the
// crank-shaped result that `--json -` prints (jobResults.jobs.load.results).
//
// An output without such an object is an error quoting the tool's own message ("crank load:
// error: ..." or a usage error), as is a run that reported an error or got no response.
package builtin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
)

// Parser parses `crank load --output json` output. The zero value is ready to use.
type Parser struct{}

// Name is the job's `parser` value.
func (Parser) Name() string { return "builtin" }

// Files returns nil: the generator needs no helper file.
func (Parser) Files() map[string][]byte { return nil }

// output is what the JSON object may hold: --output json's fields, or a crank-shaped result's.
type output struct {
	Results map[string]float64 `json:"results"`
	Error   string             `json:"error"`
	// Interrupted: the run was stopped early; its results cover the time it ran (partial).
	Interrupted bool `json:"interrupted"`
	Report      *struct {
		Timeline []struct {
			Time    time.Time `json:"time"`
			RPS     float64   `json:"rps"`
			Latency struct {
				P50 float64 `json:"p50"`
				P99 float64 `json:"p99"`
			} `json:"latency"`
		} `json:"timeline"`
		Start   time.Time    `json:"start"`
		Elapsed api.Duration `json:"elapsed"`
		RPS     float64      `json:"rps"`
		Options struct {
			Rate int `json:"rate"`
		} `json:"options"`
		IOFallback string `json:"ioFallback"` // why --io auto took epoll: io_uring was refused
	} `json:"report"`
	// Histogram: every measured latency (us), HdrHistogram V2 compressed, base64.
	Histogram  string `json:"histogram"`
	JobResults *struct {
		Jobs map[string]struct {
			Results map[string]float64 `json:"results"`
		} `json:"jobs"`
	} `json:"jobResults"`
}

// maxOutput bounds how much output Parse reads.
const maxOutput = 16 << 20

// Parse reads the generator's complete output.
func (Parser) Parse(r io.Reader) (map[string]float64, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxOutput))
	if err != nil {
		return nil, fmt.Errorf("builtin: reading output: %w", err)
	}
	out, found := findObject(data)
	if !found {
		return nil, fmt.Errorf("builtin: %w", noObject(data))
	}
	if out.Error != "" {
		return nil, fmt.Errorf("builtin: %s", out.Error)
	}
	results := out.Results
	if results == nil && out.JobResults != nil {
		for _, job := range out.JobResults.Jobs {
			results = job.Results
		}
	}
	if out.Report != nil && out.Report.Options.Rate > 0 {
		if _, ok := results[measure.LoadAskedRate]; !ok { // the rate asked, which http/rps/mean may fall short of
			results[measure.LoadAskedRate] = float64(out.Report.Options.Rate)
		}
	}
	if _, ok := results[""]; ok {
		return nil, errors.New("builtin: the JSON output has a result with an empty name")
	}
	n, ok := results[measure.Requests]
	switch {
	case !ok:
		return nil, fmt.Errorf("builtin: the JSON output has no %s result", measure.Requests)
	case n == 0:
		return nil, fmt.Errorf("builtin: no responses (%v errors)", results[measure.Errors])
	}
	return results, nil
}

// Timeline reads the report's per-second timeline as measure.BuiltinRPSPerSecond samples and,
// for the seconds that completed a response, measure.BuiltinLatency50PerSecond and
// BuiltinLatency99PerSecond samples, each stamped with the end of its second: the client-side
// requests/sec and latency over time.
func (Parser) Timeline(r io.Reader) ([]api.Measurement, error) {
	out, found, err := readObject(r)
	if err != nil || !found || out.Report == nil {
		return nil, err
	}
	ms := make([]api.Measurement, 0, 3*len(out.Report.Timeline))
	for _, s := range out.Report.Timeline {
		if !s.Time.IsZero() {
			ms = append(ms, api.Measurement{Name: measure.BuiltinRPSPerSecond, Timestamp: s.Time, Value: s.RPS})
			if s.RPS > 0 { // a second without a response has no latency, not a latency of 0
				ms = append(ms, api.Measurement{Name: measure.BuiltinLatency50PerSecond, Timestamp: s.Time, Value: s.Latency.P50},
					api.Measurement{Name: measure.BuiltinLatency99PerSecond, Timestamp: s.Time, Value: s.Latency.P99})
			}
		}
	}
	return ms, nil
}

// maxWarning bounds a warning taken from the tool's output.
const maxWarning = 500

// Warnings says when the run took epoll because io_uring was refused (--io auto, the default),
// with the generator's reason: the same run elsewhere may have been on io_uring, and cost less.
func (Parser) Warnings(r io.Reader) []string {
	out, found, err := readObject(r)
	if err != nil || !found || out.Report == nil || out.Report.IOFallback == "" {
		return nil
	}
	why := out.Report.IOFallback
	if len(why) > maxWarning {
		why = why[:maxWarning] + "..."
	}
	return []string{"crank load ran on epoll, not io_uring: " + why}
}

// LoadReport reads the report's window, its rates and its latency histogram (--output json).
func (Parser) LoadReport(r io.Reader) (*api.LoadReport, error) {
	out, found, err := readObject(r)
	if err != nil || !found || out.Report == nil {
		return nil, err
	}
	rep := out.Report
	return &api.LoadReport{Start: rep.Start, End: rep.Start.Add(rep.Elapsed.Std()), AskedRate: float64(rep.Options.Rate),
		AchievedRate: rep.RPS, Histogram: out.Histogram}, nil
}

// readObject reads the tool's output (bounded) and finds its JSON object (findObject).
func readObject(r io.Reader) (out output, found bool, err error) {
	data, err := io.ReadAll(io.LimitReader(r, maxOutput))
	if err != nil {
		return output{}, false, fmt.Errorf("builtin: reading output: %w", err)
	}
	out, found = findObject(data)
	return out, found, nil
}

// findObject decodes the last JSON object that starts a line and holds results or an error.
func findObject(data []byte) (output, bool) {
	var best output
	found := false
	for off := 0; off < len(data); {
		if data[off] == '{' {
			var o output
			if json.NewDecoder(bytes.NewReader(data[off:])).Decode(&o) == nil &&
				(o.Results != nil || o.Error != "" || o.JobResults != nil) {
				best, found = o, true
			}
		}
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return best, found
}

// noObject explains an output without a JSON object: the tool's last error line, if it printed one.
func noObject(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("empty output")
	}
	var last string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "crank load:") {
			last = line
		}
	}
	if last != "" {
		return errors.New(last)
	}
	return errors.New("no JSON results in the output (run crank load with --output json)")
}

// FirstRequest is a GET of crank load's URL over HTTP/1.1, or HTTP/2 with --protocol h2. A gRPC
// run has no HTTP request to time.
func (Parser) FirstRequest(args []string) (parsers.Target, error) {
	u, err := parsers.FirstURL(args)
	t := parsers.Target{URL: u}
	for i, a := range args {
		p, ok := strings.CutPrefix(a, "--protocol=")
		if a == "--protocol" && i+1 < len(args) {
			p, ok = args[i+1], true
		}
		if !ok {
			continue
		}
		switch p {
		case "h2":
			t.HTTP2 = true
		case "grpc":
			return t, fmt.Errorf("%w: a gRPC run", parsers.ErrNotHTTP)
		}
	}
	return t, err
}
