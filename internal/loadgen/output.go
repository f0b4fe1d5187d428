package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// jsonOutput is what --output json prints on stdout: one line, parsed by parsers/builtin.
type jsonOutput struct {
	Results map[string]float64 `json:"results,omitempty"`
	Report  *Report            `json:"report,omitempty"`
	Error   string             `json:"error,omitempty"`
	// Interrupted says the run was stopped early (Ctrl-C, SIGTERM): the results cover the time
	// it ran, and parsers/builtin keeps them as partial figures.
	Interrupted bool `json:"interrupted,omitempty"`
	// Histogram is Report.Histogram (every measured latency, microseconds) in HdrHistogram's V2
	// compressed encoding, base64: what a controller merges across generators.
	Histogram string `json:"histogram,omitempty"`
}

// writeOutputs prints the report as the command line asked. The text summary goes to stdout
// unless stdout carries JSON, then to stderr.
func writeOutputs(c *command, rep *Report, runErr error, stdout, stderr io.Writer) error {
	summary := stdout
	if c.format == FormatJSON || c.jsonPath == "-" {
		summary = stderr
	}
	writeSummary(summary, rep)
	if c.format == FormatJSON {
		out := jsonOutput{Results: rep.Results(), Report: rep}
		if rep.Histogram != nil && rep.Histogram.TotalCount() > 0 {
			b, err := rep.Histogram.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				return fmt.Errorf("encoding the latency histogram: %w", err)
			}
			out.Histogram = string(b)
		}
		switch {
		case errors.Is(runErr, context.Canceled), errors.Is(runErr, context.DeadlineExceeded):
			out.Interrupted = true
		case runErr != nil:
			out.Error = runErr.Error()
		}
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
	}
	switch c.jsonPath {
	case "":
		return nil
	case "-":
		b, err := json.MarshalIndent(CrankResult(rep), "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	if err := results.WriteFile(c.jsonPath, CrankResult(rep)); err != nil {
		return fmt.Errorf("result file %s: %w", c.jsonPath, err)
	}
	return nil
}

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// LoadJob is the job name a crank-shaped result from `crank load` files its results under.
const LoadJob = "load"

// CrankResult returns the report as a crank-shaped result: jobResults.jobs.load holds the results,
// their metadata from the measurement catalog, and the results as one endpoint's measurements.
func CrankResult(rep *Report) *results.Result {
	values := rep.Results()
	catalog := measure.Default()
	end := rep.Start.Add(rep.Elapsed)
	var meta []api.Metadata
	var ms []api.Measurement
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if m, ok := catalog.Lookup(name); ok {
			meta = append(meta, m)
		}
		ms = append(ms, api.Measurement{Name: name, Timestamp: end, Value: values[name]})
	}
	meta = append(meta, timelineMetadata()...)
	o := rep.Options
	return &results.Result{
		StartTime: rep.Start,
		JobResults: results.JobResults{
			Jobs: map[string]*results.JobResult{LoadJob: {
				Results: values, Metadata: meta, Measurements: [][]api.Measurement{append(timelineMeasurements(rep.Timeline), ms...)},
				Environment: map[string]any{"tool": "crank load"},
				Variables: map[string]any{
					"url": o.URL, "connections": o.Connections, "threads": o.Threads,
					"pipeline": o.Pipeline, "duration": o.Duration.Seconds(),
					"protocol": o.Protocol, "streams": o.Streams,
					"warmup": o.Warmup.Seconds(), "rate": o.Rate, "method": o.Method,
				},
			}},
			Properties: map[string]string{},
		},
	}
}

// writeSummary prints a readable summary of the report.
func writeSummary(w io.Writer, r *Report) {
	o := r.Options
	rate := "unlimited"
	if o.Rate > 0 {
		rate = fmt.Sprintf("%d/s", o.Rate)
	}
	fmt.Fprintf(w, "Running %s load @ %s (warm-up %s)\n", o.Duration, o.URL, o.Warmup)
	switch o.Protocol {
	case ProtocolH2:
		fmt.Fprintf(w, "  HTTP/2, %d connections x %d streams, %d threads, rate %s\n",
			o.Connections, o.Streams, r.Threads, rate)
	case ProtocolGRPC:
		fmt.Fprintf(w, "  gRPC %s calls, %d connections x %d streams, %d threads, rate %s, response %d B, request payload %d B\n",
			o.Call, o.Connections, o.Streams, r.Threads, rate, o.ResponseSize, o.RequestSize)
	default:
		fmt.Fprintf(w, "  %d connections, %d threads, pipeline %d, rate %s\n",
			o.Connections, r.Threads, o.Pipeline, rate)
	}
	if r.IO != "" {
		fmt.Fprintf(w, "  I/O: %s\n", r.IO)
	}
	if r.IOFallback != "" {
		fmt.Fprintf(w, "  io_uring refused, epoll instead: %s\n", r.IOFallback)
	}
	if r.ServerMaxStreams > 0 {
		fmt.Fprintf(w, "  The server allows only %d streams per connection (asked for %d)\n", r.ServerMaxStreams, o.Streams)
	}
	l := r.Latency
	fmt.Fprintf(w, "  Latency (ms)  mean %.2f  p50 %.2f  p75 %.2f  p90 %.2f  p95 %.2f  p99 %.2f  max %.2f\n",
		l.Mean, l.P50, l.P75, l.P90, l.P95, l.P99, l.Max)
	fmt.Fprintf(w, "  %d requests in %.2fs, %.2f MB read\n", r.Requests, r.Elapsed.Seconds(), float64(r.Bytes)/1e6)
	var classes []string
	for _, k := range slices.Sorted(maps.Keys(r.Status)) {
		classes = append(classes, fmt.Sprintf("%s %d", k, r.Status[k]))
	}
	if len(classes) == 0 {
		classes = []string{"no response"}
	}
	fmt.Fprintf(w, "  Status: %s\n", strings.Join(classes, ", "))
	if len(r.GRPCStatus) > 0 {
		var codes []string
		for _, k := range slices.Sorted(maps.Keys(r.GRPCStatus)) {
			codes = append(codes, fmt.Sprintf("%s %d", k, r.GRPCStatus[k]))
		}
		fmt.Fprintf(w, "  gRPC status: %s\n", strings.Join(codes, ", "))
	}
	if r.BadResponses > 0 {
		fmt.Fprintf(w, "  Non-2xx or 3xx responses: %d\n", r.BadResponses)
	}
	e := r.Errors
	if e.Total() > 0 {
		fmt.Fprintf(w, "  Errors: %s\n", e)
	}
	if r.ConnectError != "" {
		fmt.Fprintf(w, "  First connect error: %s\n", r.ConnectError)
	}
	if r.Unsent > 0 || r.Dropped > 0 {
		fmt.Fprintf(w, "  Unsent (behind schedule): %d, dropped (server closed): %d\n", r.Unsent, r.Dropped)
	}
	fmt.Fprintf(w, "Requests/sec: %.2f\n", r.RPS)
}
