// Package wrk parses the text report of wrk (https://github.com/wg/wrk) 4.x:
//
//	wrk -c 256 -t 32 -d 15s --latency [-s scripts/pipeline.lua] http://host:port/path [-- DEPTH]
//
// It reads "Requests/sec" (wrk/rps/mean and http/rps/mean), "N requests in" (http/requests), the
// "Latency" thread-stats row (average and max), the --latency distribution (50/75/90/99%),
// "Socket errors: connect a, read b, write c, timeout d" (summed into http/requests/errors) and
// "Non-2xx or 3xx responses: N" (http/requests/badresponses); the last two are 0 when wrk omits
// the line. Latencies are converted to milliseconds from wrk's us/ms/s/m/h units.
//
// Percentiles are emitted only when wrk printed them (--latency), and not when wrk printed 0 for
// one although it recorded latencies: its percentile lookup returns 0 when it runs past the
// recorded samples, which happens for the upper percentiles of every pipelined run.
//
// A report without "Requests/sec" is an error quoting wrk's own message ("unable to connect to
// 127.0.0.1:1 Connection refused"), as is a report of zero responses. So is a -s script wrk could
// not load: wrk prints the Lua error and then runs without the script, exit status 0.
package wrk

import (
	_ "embed"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
)

// PipelineScript is the path, relative to the job's folder, of the pipelining Lua script that
// Files provides: `-s scripts/pipeline.lua URL -- DEPTH`.
const PipelineScript = "scripts/pipeline.lua"

//go:embed scripts/pipeline.lua
var pipelineLua string

// Parser parses wrk's text report. The zero value is ready to use.
type Parser struct{}

// Name is the job's `parser` value.
func (Parser) Name() string { return "wrk" }

// Files returns the pipelining script at PipelineScript.
func (Parser) Files() map[string][]byte {
	return map[string][]byte{PipelineScript: []byte(pipelineLua)}
}

// report gathers what one wrk output holds.
type report struct {
	values         map[string]float64 // by measurement name
	notMeasured    map[string]string  // printed, but not a value to trust: why
	lines, unknown []string
	running        bool   // the "Running Ns test @" line was seen
	scriptErr      string // wrk's message for a Lua script it could not load
	socket         string // the "Socket errors" line
}

// Parse reads wrk's complete output.
func (Parser) Parse(r io.Reader) (map[string]float64, error) {
	rep := report{values: map[string]float64{}}
	if err := parsers.EachLine(r, rep.add); err != nil {
		return nil, fmt.Errorf("wrk: %w", err)
	}
	if err := rep.check(); err != nil {
		return nil, fmt.Errorf("wrk: %w", err)
	}
	return rep.values, nil
}

// NotMeasured names the percentiles wrk printed as 0 though it recorded latencies (see
// dropFailedPercentiles), with why.
func (Parser) NotMeasured(r io.Reader) map[string]string {
	rep := report{values: map[string]float64{}}
	if parsers.EachLine(r, rep.add) != nil || rep.check() != nil {
		return nil
	}
	return rep.notMeasured
}

// rule recognises one kind of report line and records what it holds.
type rule struct {
	re    *regexp.Regexp
	apply func(rep *report, m []string) error
}

// rules are tried in order; the first whose expression matches a line applies.
var rules = []rule{
	{regexp.MustCompile(`^Running \S+ test @ `), func(rep *report, _ []string) error {
		rep.running = true
		return nil
	}},
	{regexp.MustCompile(`^Requests/sec:\s+(\S+)$`), func(rep *report, m []string) error {
		return rep.set(parsers.Number, m[1], measure.WrkRPS, measure.RPS)
	}},
	{regexp.MustCompile(`^Latency\s+(\S+)\s+\S+\s+(\S+)\s+\S+$`), func(rep *report, m []string) error {
		if err := rep.set(parsers.Millis, m[1], measure.LatencyMean); err != nil {
			return err
		}
		return rep.set(parsers.Millis, m[2], measure.LatencyMax)
	}},
	{regexp.MustCompile(`^(50|75|90|99)%\s+(\S+)$`), func(rep *report, m []string) error {
		return rep.set(parsers.Millis, m[2], percentileName(m[1]))
	}},
	{regexp.MustCompile(`^(\d+) requests in \S+, \S+ read$`), func(rep *report, m []string) error {
		return rep.set(parsers.Number, m[1], measure.Requests)
	}},
	{regexp.MustCompile(`^Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)$`), func(rep *report, m []string) error {
		rep.socket = m[0]
		sum := 0.0
		for _, s := range m[1:] {
			v, err := parsers.Number(s)
			if err != nil {
				return err
			}
			sum += v
		}
		rep.values[measure.Errors] = sum
		return nil
	}},
	{regexp.MustCompile(`^Non-2xx or 3xx responses: (\d+)$`), func(rep *report, m []string) error {
		return rep.set(parsers.Number, m[1], measure.BadResponses)
	}},
	{regexp.MustCompile(`^Transfer/sec:\s+(\S+)$`), func(rep *report, m []string) error {
		return rep.set(mebibytes, m[1], measure.Throughput)
	}},
	{regexp.MustCompile(`^(\d+ threads and \d+ connections|Thread Stats .*|Req/Sec .*|Latency Distribution|\d+(\.\d+)?% .*)$`), nil},
}

// reScriptErr is how wrk reports a -s script it could not load ("x.lua: cannot open x.lua",
// "x.lua: x.lua:2: unexpected symbol near '='") before it goes on without the script.
var reScriptErr = regexp.MustCompile(`^\S+: (cannot open |\S+:\d+: )`)

// add records one trimmed, non-empty line.
func (rep *report) add(line string) error {
	rep.lines = append(rep.lines, line)
	for _, r := range rules {
		if m := r.re.FindStringSubmatch(line); m != nil {
			if r.apply == nil {
				return nil
			}
			return r.apply(rep, m)
		}
	}
	rep.unknown = append(rep.unknown, line)
	if !rep.running && rep.scriptErr == "" && reScriptErr.MatchString(line) {
		rep.scriptErr = line
	}
	return nil
}

// set stores the value of s, parsed by parse, under every name.
func (rep *report) set(parse func(string) (float64, error), s string, names ...string) error {
	v, err := parse(s)
	if err != nil {
		return err
	}
	for _, name := range names {
		rep.values[name] = v
	}
	return nil
}

// check says why the output is not a successful run, if it is not, and fills in the counts wrk
// leaves out when they are zero.
func (rep *report) check() error {
	has := func(name string) bool { _, ok := rep.values[name]; return ok }
	switch {
	case len(rep.lines) == 0:
		return fmt.Errorf("empty output")
	case rep.scriptErr != "":
		return fmt.Errorf("script not loaded (wrk ran without it): %s", rep.scriptErr)
	case !has(measure.WrkRPS) && len(rep.unknown) > 0:
		return fmt.Errorf("run failed: %s", rep.unknown[0])
	case !has(measure.WrkRPS):
		return fmt.Errorf("output ends before \"Requests/sec\" (last line %q)", rep.lines[len(rep.lines)-1])
	case !has(measure.LatencyMean):
		return fmt.Errorf("no \"Latency\" row in the report")
	case !has(measure.Requests):
		return fmt.Errorf("no \"N requests in\" line in the report")
	case rep.values[measure.Requests] == 0 && rep.socket != "":
		return fmt.Errorf("no responses (%s)", rep.socket)
	case rep.values[measure.Requests] == 0:
		return fmt.Errorf("no responses")
	}
	for _, name := range []string{measure.BadResponses, measure.Errors} {
		if !has(name) {
			rep.values[name] = 0
		}
	}
	rep.dropFailedPercentiles()
	for alias, name := range measure.ToolAliases("wrk") { // crank's wrk job reports each under a wrk/ name too
		if v, ok := rep.values[name]; ok {
			rep.values[alias] = v
		}
	}
	return nil
}

// mebibytes reads wrk's Transfer/sec ("12.34MB", "980.00KB") in MiB.
func mebibytes(s string) (float64, error) {
	units := []struct {
		suffix string
		scale  float64
	}{{"GB", 1024}, {"MB", 1}, {"KB", 1.0 / 1024}, {"B", 1.0 / (1024 * 1024)}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := parsers.Number(n)
			return v * u.scale, err
		}
	}
	return 0, fmt.Errorf("transfer rate %q: want a number with B, KB, MB or GB", s)
}

// dropFailedPercentiles removes the distribution values wrk printed as 0 although it recorded
// latencies: wrk prints 0 when its percentile lookup runs past the recorded samples, which it does
// for the upper percentiles of every pipelined run (-s pipeline.lua).
func (rep *report) dropFailedPercentiles() {
	if rep.values[measure.LatencyMax] == 0 {
		return
	}
	for _, name := range []string{measure.Latency50, measure.Latency75, measure.Latency90, measure.Latency99} {
		if v, ok := rep.values[name]; ok && v == 0 {
			delete(rep.values, name)
			if rep.notMeasured == nil {
				rep.notMeasured = map[string]string{}
			}
			rep.notMeasured[name] = fmt.Sprintf("wrk printed 0.00us though its latencies reach %s ms: its percentile lookup overflows with pipelined requests",
				strconv.FormatFloat(rep.values[measure.LatencyMax], 'f', -1, 64))
		}
	}
}

// percentileName is the measurement for a --latency distribution line.
func percentileName(pct string) string {
	switch pct {
	case "50":
		return measure.Latency50
	case "75":
		return measure.Latency75
	case "90":
		return measure.Latency90
	}
	return measure.Latency99
}

// FirstRequest is a GET of wrk's URL over HTTP/1.1.
func (Parser) FirstRequest(args []string) (parsers.Target, error) {
	u, err := parsers.FirstURL(args)
	return parsers.Target{URL: u}, err
}
