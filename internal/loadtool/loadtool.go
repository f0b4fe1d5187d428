// Package loadtool is the model of every load tool crank drives: the built-in generator (closed
// loop, and fixed rate), wrk, bombardier (closed loop, and -r), h2load and ghz. For each, one row
// of a table says whether it runs an open or a closed loop, which of the load's settings (job
// variables) it honours and how, whether its latency is corrected for coordinated omission, which
// percentiles it gives and what its requests/s counts.
//
// The table serves three readers: internal/config refuses, before anything starts, a setting the
// load's tool cannot honour (Check); internal/controller labels a load's latency figures with the
// model of the run (Of); docs/LOADGEN.md's table of the tools says the same as Models.
//
// A tool is known by the job's parser. A job whose program is another one than the tool's (a
// wrk2 read by the wrk parser) has no model: its settings are its own.
package loadtool

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// Loop is how a tool paces its requests.
type Loop string

// The loops.
const (
	// Closed: each connection (or stream) sends its next request when the last is answered, so a
	// server that stalls also stalls the load.
	Closed Loop = "closed"
	// RateLimited: a closed loop whose sends are also capped at a rate; a request held back while
	// the connections wait is sent late or never, and its wait is not in its latency.
	RateLimited Loop = "rate-limited closed"
	// Open: requests are due on a fixed schedule whatever the answers, and each latency counts
	// from the time its request was due.
	Open Loop = "open"
)

// Correction says whether a tool's latency is corrected for coordinated omission: the requests a
// stalled server kept the load from sending, whose wait a closed loop never records.
type Correction string

// The corrections.
const (
	// Corrected: measured from each request's intended send time.
	Corrected Correction = "corrected"
	// BackFilled: wrk's: after the run it adds, for each latency longer than the mean interval
	// between a connection's requests, the samples the requests it held back would have had. An
	// estimate from the run's mean rate, not the latencies of requests on a schedule.
	BackFilled Correction = "back-filled"
	// NotCorrected: measured from when each request was sent.
	NotCorrected Correction = "not corrected"
)

// Model is one tool in one mode, as a run's result records it (JSON "loadTool").
type Model struct {
	Tool    string     `json:"tool"`
	Mode    string     `json:"mode"`
	Loop    Loop       `json:"loop"`
	Latency Correction `json:"latencyCorrection"`
	// Note says in one sentence what the latency is, for the tables and the metadata.
	Note string `json:"note"`
	// Percentiles are the latency figures the tool gives (catalog names).
	Percentiles []string `json:"percentiles"`
	// RPS says what the tool's requests/s (http/rps/mean) counts.
	RPS string `json:"rps"`
	// Honours are the settings it takes, with how.
	Honours map[string]string `json:"honours"`
}

// The settings (job variables) the model knows, as crank's and our job files name them.
const (
	Rate        = "rate"
	Connections = "connections"
	Pipeline    = "pipeline"
	Streams     = "streams"
	Threads     = "threads"
	Duration    = "duration"
	Warmup      = "warmup"
)

// Settings lists them in the order messages and docs give them.
var Settings = []string{Rate, Connections, Pipeline, Streams, Threads, Duration, Warmup}

// support is how a tool takes one setting: honoured (how), or not: refused (the run would measure
// another load than the one asked) or said (only the tool's own resources: a warning).
type support struct {
	how string
	// when, if set, is the condition on the run's variables under which it is honoured, and
	// otherwise why not ("protocol h2 takes streams").
	when func(vars map[string]any) (bool, string)
	// warnOnly: not honoured, and not refused: it changes only the tool's resources.
	warnOnly string
	// cannot: not honoured; why.
	cannot string
}

func (s support) honoured(vars map[string]any) (bool, string) {
	if s.how == "" {
		return false, s.cannot + s.warnOnly
	}
	if s.when != nil {
		return s.when(vars)
	}
	return true, ""
}

// mode is one mode of a tool: its loop and latency.
type mode struct {
	name    string
	loop    Loop
	latency Correction
	note    string
}

// tool is one row of the table.
type tool struct {
	name        string   // the job's parser
	executables []string // the programs it runs (base names)
	closed      mode
	rated       *mode // with rate > 0; nil: the tool takes no rate
	settings    map[string]support
	percentiles []string
	rps         string
}

var (
	pcts5 = []string{measure.Latency50, measure.Latency75, measure.Latency90, measure.Latency95, measure.Latency99}
	pcts4 = []string{measure.Latency50, measure.Latency75, measure.Latency90, measure.Latency99}
)

const closedNote = "closed loop: not corrected for coordinated omission (a request waits for the one before it, so a stall delays what would have been sent and its wait is not recorded)"

func honoured(how string) support { return support{how: how} }
func cannot(why string) support   { return support{cannot: why} }
func warnOnly(why string) support { return support{warnOnly: why} }

// protocolIs is honoured with one of the built-in generator's protocols ps.
func protocolIs(ps ...string) func(map[string]any) (bool, string) {
	return func(vars map[string]any) (bool, string) {
		p := fmt.Sprint(vars["protocol"])
		if vars["protocol"] == nil || p == "" {
			p = "http1"
		}
		if slices.Contains(ps, p) {
			return true, ""
		}
		takes := "pipeline"
		if p != "http1" {
			takes = "streams"
		}
		return false, fmt.Sprintf("the built-in generator with protocol %s takes %s", p, takes)
	}
}

// tools is the table, in the order a message names the tools that can honour a setting.
var tools = []tool{
	{
		name: "builtin", executables: []string{"crank"},
		closed: mode{"closed loop", Closed, NotCorrected, closedNote},
		rated: &mode{"fixed rate", Open, Corrected,
			"fixed rate (open loop): corrected for coordinated omission, each latency counted from the time its request was due"},
		settings: map[string]support{
			Rate:        honoured("--rate: request n of the run due at n/rate s, latency from that time"),
			Connections: honoured("-c"),
			Pipeline:    {how: "-p (HTTP/1.1)", when: protocolIs("http1")},
			Streams:     {how: "-m (h2, grpc)", when: protocolIs("h2", "grpc")},
			Threads:     honoured("-t: GOMAXPROCS"),
			Duration:    honoured("-d"),
			Warmup:      honoured("--warmup: an unrecorded lead in the same run"),
		},
		percentiles: append(slices.Clone(pcts5), measure.LatencyMax),
		rps:         "responses completed within the measured duration, over the duration (errors not counted)",
	},
	{
		name: "wrk", executables: []string{"wrk"},
		closed: mode{"closed loop", Closed, BackFilled,
			"closed loop: not corrected for coordinated omission; wrk back-fills its latencies after the run from its mean interval between requests, an estimate, not a schedule's latencies"},
		settings: map[string]support{
			Rate:        cannot("wrk runs a closed loop: it has no rate (wrk2's -R is another program)"),
			Connections: honoured("-c"),
			Pipeline:    honoured("-s scripts/pipeline.lua -- DEPTH"),
			Streams:     cannot("wrk speaks HTTP/1.1 only: no streams"),
			Threads:     honoured("-t"),
			Duration:    honoured("-d"),
			Warmup:      honoured("a separate unmeasured run before the measured one"),
		},
		percentiles: append(slices.Clone(pcts4), measure.LatencyMax),
		rps:         "responses (any status) over the run's time, wrk's Requests/sec",
	},
	{
		name: "bombardier", executables: []string{"bombardier"},
		closed: mode{"closed loop", Closed, NotCorrected, closedNote},
		rated: &mode{"-r rate", RateLimited, NotCorrected,
			"-r: a rate-limited closed loop, not corrected for coordinated omission (a request held back by a stall is sent late or never, and its latency counts from when it was sent)"},
		settings: map[string]support{
			Rate:        honoured("-r: sends capped at the rate over the connections, each waiting for its answer"),
			Connections: honoured("-c"),
			Pipeline:    cannot("bombardier does not pipeline"),
			Streams:     cannot("bombardier keeps one request in flight per connection"),
			Threads:     warnOnly("bombardier has no thread setting: it runs on every core"),
			Duration:    honoured("-d"),
			Warmup:      honoured("a separate unmeasured run before the measured one"),
		},
		percentiles: append(slices.Clone(pcts5), measure.LatencyMax),
		rps:         "http/rps/mean: responses over the run's time; bombardier/rps/mean: the mean of its per-interval rates, errors included",
	},
	{
		name: "h2load", executables: []string{"h2load"},
		closed: mode{"closed loop", Closed, NotCorrected, closedNote},
		settings: map[string]support{
			Rate:        cannot("h2load's job runs a closed loop (h2load's -r is a rate of new connections, not of requests)"),
			Connections: honoured("-c"),
			Pipeline:    cannot("h2load's job takes streams (-m), not pipeline"),
			Streams:     honoured("-m: concurrent streams per connection"),
			Threads:     honoured("-t"),
			Duration:    honoured("-D"),
			Warmup:      honoured("a separate unmeasured run before the measured one"),
		},
		percentiles: []string{measure.LatencyMax},
		rps:         "responses (done less errored) over the run's time, h2load's req/s",
	},
	{
		name: "ghz", executables: []string{"ghz"},
		closed: mode{"closed loop", Closed, NotCorrected, closedNote},
		settings: map[string]support{
			Rate:        cannot("ghz's job runs a closed loop (it does not pass ghz's --rps)"),
			Connections: honoured("--connections"),
			Pipeline:    cannot("ghz sends gRPC calls: it takes streams, not pipeline"),
			Streams:     honoured("-c connections x streams calls in flight"),
			Threads:     warnOnly("ghz's job has no thread setting: it runs on every core"),
			Duration:    honoured("-z"),
			Warmup:      honoured("a separate unmeasured run before the measured one"),
		},
		percentiles: append(slices.Clone(pcts5), measure.LatencyMax),
		rps:         "calls (any status) over the run's time, ghz's rps",
	},
}

// find is the tool a job's parser and executable name, if any.
func find(parser, executable string) (tool, bool) {
	for _, t := range tools {
		if t.name != parser {
			continue
		}
		if executable != "" && !slices.Contains(t.executables, strings.TrimSuffix(filepath.Base(executable), ".exe")) {
			return tool{}, false
		}
		return t, true
	}
	return tool{}, false
}

// Of is the model of the run a load job makes: its tool (by its parser and program) in the mode
// its variables ask (the rate). False for a job that is not a known tool.
func Of(parser, executable string, vars map[string]any) (Model, bool) {
	t, ok := find(parser, executable)
	if !ok {
		return Model{}, false
	}
	m := t.closed
	if rate, _ := Number(vars[Rate]); rate > 0 && t.rated != nil {
		m = *t.rated
	}
	honours := map[string]string{}
	for name, s := range t.settings {
		if ok, _ := s.honoured(vars); ok {
			honours[name] = s.how
		}
	}
	return Model{Tool: t.name, Mode: m.name, Loop: m.loop, Latency: m.latency, Note: m.note,
		Percentiles: slices.Clone(t.percentiles), RPS: t.rps, Honours: honours}, true
}

// Tools lists the tools' names, in the table's order.
func Tools() []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.name
	}
	return out
}

// Number reads a variable as a number (an int, a float or a numeric string, "5s" as 5).
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	s := strings.TrimSuffix(strings.TrimSpace(fmt.Sprint(v)), "s")
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// Label is what a latency figure's short description says of its correction for coordinated
// omission under the model: "not corrected for coordinated omission" for a closed loop.
func (m Model) Label() string {
	switch m.Latency {
	case Corrected:
		return "corrected for coordinated omission"
	case BackFilled:
		return "back-filled by wrk, not corrected for coordinated omission"
	}
	return "not corrected for coordinated omission"
}

// IsLatency tells whether a figure is one of a load tool's latencies (http/latency/99,
// wrk/latency/50, builtin/latency-per-second/99), which the model's label qualifies.
func IsLatency(name string) bool {
	return strings.Contains(name, "/latency/") || strings.Contains(name, "/latency-per-second/")
}
