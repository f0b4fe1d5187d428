package e2e

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/diagnose"
)

// The verdict conformance suite (issue 44, item 4): constructed servers whose truth is known
// (testdata/diagserver, and nginx set up to a known truth) x load tools, each cell with the
// verdicts that are right or say "cannot tell". conformance_measure_test.go runs the matrix (make
// measure) quiet and beside one busy core, and with -update records what it saw in
// testdata/conformance.json; TestConformanceDoc keeps docs/MEASUREMENTS.md's table the rendering
// of that record:
//
//	go test -tags measure ./internal/e2e -run TestConformanceMatrix -v -update
//	go test ./internal/e2e -run TestConformanceDoc -update

var update = flag.Bool("update", false, "rewrite testdata/conformance.json (the matrix) and docs/MEASUREMENTS.md's conformance table")

// confServer is one row of the matrix: a diagserver mode built to a known truth, and the verdicts
// right or "cannot tell" for each kind of load.
type confServer struct {
	name  string // the row's label
	truth string // what the server does, for the table
	mode  string // diagserver --mode and --work
	work  string
	// metrics serves the Go runtime's counters (lock contention among them).
	metrics bool
	// connections of every tool; rate the fixed-rate tools' requests/s; duration measured seconds.
	connections, rate, duration int
	// burn keeps a core busy beside the run (the busy machine), in both conditions.
	burn bool
	// closed: the verdicts right or "cannot tell" under a closed loop (built-in, wrk, bombardier,
	// h2load); open under the built-in generator's fixed rate (latency from the intended send time);
	// capped under bombardier -r (a closed loop capped at a rate, latency not corrected). nil: closed.
	closed, open, capped []string
	// why says why the sets are what they are, for the table.
	why string
	// nginx, when above 0, makes the row nginx with that many workers, not diagserver: gzip level
	// 9 of a 26 KB text file (about 1.6 ms of CPU per request); reuseport gives each worker its
	// own listening socket (the kernel spreads the connections), else one worker may take them all.
	nginx     int
	reuseport bool
}

// confTool is one column: a load tool in one mode, as the scenario's load job and its variables.
type confTool struct {
	name string
	job  string
	rate bool // the row's fixed rate is given
	// corrected: the tool's latency counts from each request's intended send time.
	corrected bool
}

var confTools = []confTool{
	{name: "builtin", job: "builtin"},
	{name: "builtin rate", job: "builtin", rate: true, corrected: true},
	{name: "wrk", job: "wrk"},
	{name: "bombardier", job: "bombardier"},
	{name: "bombardier -r", job: "bombardier", rate: true},
	{name: "h2load", job: "h2load"},
}

var confServers = []confServer{
	{name: "serialized black box", truth: "one worker sleeping 400 µs per request, no metrics (2,500 req/s at most)",
		mode: "worker", work: "400us", connections: 32, rate: 4000, duration: 3,
		closed: []string{diagnose.Serialized, diagnose.Waiting},
		why:    "waiting: without the probe one run cannot tell one worker from parallel waits"},
	{name: "a few at a time", truth: "four slots, each request sleeping 20 ms in one (200 req/s at most; 150 on 3 connections)",
		mode: "pool4", work: "20ms", connections: 3, rate: 100, duration: 3,
		closed: []string{diagnose.Serialized, diagnose.Waiting},
		open:   []string{diagnose.RateCapped},
		why: "twice the connections gain a third, which tells neither one at a time nor a load too light: a second probe, flat from " +
			"the first, says serialized (a few at a time); waiting when it cannot tell; a rate within reach caps the run"},
	{name: "one busy thread", truth: "one OS thread (an event loop) burns 1 ms of CPU for every request, one after another (1,000 req/s at most, one core of two)",
		mode: "loop", work: "1ms", connections: 32, rate: 2000, duration: 3,
		closed: []string{diagnose.Serialized, diagnose.Waiting},
		why:    "serialized: its busiest thread is saturated and the server is not; waiting when an agent does not sample threads"},
	{name: "nginx, one worker", truth: "nginx 1.22, one worker compressing a 26 KB text file (gzip level 9) for every request",
		nginx: 1, connections: 32, rate: 2000, duration: 3,
		closed: []string{diagnose.Serialized, diagnose.Waiting},
		why:    "a server nobody here built: its one worker's thread is saturated and the server is not"},
	{name: "nginx, two workers, reuseport", truth: "the same nginx with two workers, each on its own listening socket",
		nginx: 2, reuseport: true, connections: 32, rate: 2000, duration: 3,
		closed: []string{diagnose.ServerBound, diagnose.MachineSaturated},
		why: "both workers busy, the server takes the machine; without reuseport one worker may accept every connection " +
			"(seen: serialized, which was then the truth)"},
	{name: "mutex with counters", truth: "each request sleeps 1 ms holding one mutex, runtime counters served",
		mode: "mutex", work: "1ms", metrics: true, connections: 32, rate: 2000, duration: 3,
		closed: []string{diagnose.ContentionBound, diagnose.Serialized, diagnose.Waiting},
		why:    "serialized or waiting: the lock is the one worker"},
	{name: "CPU-bound", truth: "each request spins 2 ms of CPU, on both cores",
		mode: "spin", work: "2ms", connections: 32, rate: 2000, duration: 3,
		closed: []string{diagnose.ServerBound, diagnose.MachineSaturated},
		why:    "machine-saturated: the load's share of the 2 cores counts too"},
	{name: "periodic freezes", truth: "answers at once, but stops answering 500 ms every 5 s (12 s runs)",
		mode: "freeze", work: "500ms", connections: 32, rate: 1000, duration: 12,
		open:   []string{diagnose.Freezes, diagnose.LongTail},
		closed: []string{diagnose.Freezes, diagnose.LongTail, diagnose.MachineSaturated, diagnose.ServerBound, diagnose.ClientBound},
		capped: []string{diagnose.Freezes, diagnose.LongTail, diagnose.RateCapped, diagnose.MachineSaturated, diagnose.ServerBound, diagnose.ClientBound},
		why: "a closed loop sends nothing while the server is paused (coordinated omission): it cannot see " +
			"the pauses, and what limited its throughput between them is right; long-tail: a pause or a slow path, cannot tell"},
	{name: "error mix", truth: "every 10th request answered 500",
		mode: "errmix", work: "0s", connections: 32, rate: 1000, duration: 3,
		closed: []string{diagnose.ErrorBound}, why: "10 % failed"},
	{name: "rate-limited", truth: "a limiter lets one request through per ms (1,000 req/s), the others wait in parallel",
		mode: "limit", work: "1ms", connections: 32, rate: 2000, duration: 3,
		closed: []string{diagnose.Serialized, diagnose.Waiting},
		why:    "the limiter serves one per ms: serialized as a queue; waiting without the probe"},
	{name: "network delay", truth: "a 10 ms sleep before each answer, in parallel (3,200 req/s on 32 connections)",
		mode: "stall", work: "10ms", connections: 32, rate: 1000, duration: 3,
		closed: []string{diagnose.Underloaded, diagnose.Waiting},
		open:   []string{diagnose.RateCapped, diagnose.Underloaded, diagnose.Waiting},
		why:    "more connections would do more; waiting without the probe; a rate within reach caps the run"},
	{name: "light load", truth: "answers at once, one connection",
		mode: "stall", work: "0s", connections: 1, rate: 200, duration: 3,
		closed: []string{diagnose.Underloaded},
		open:   []string{diagnose.RateCapped, diagnose.Underloaded},
		why:    "one connection: the load is too light; a rate within reach caps the run"},
	{name: "busy machine", truth: "sleeps 1 ms per request (16 connections) beside sha256sum /dev/zero on a core",
		mode: "stall", work: "1ms", connections: 16, rate: 1000, duration: 3, burn: true,
		closed: []string{diagnose.MachineBusy},
		open:   []string{diagnose.MachineBusy, diagnose.RateCapped},
		why:    "rate-capped does not rest on CPU and stands on a busy machine"},
}

// accepts is the verdicts right or "cannot tell" in the cell (machine-busy aside: see cannotTell).
func (s confServer) accepts(tool confTool) []string {
	switch {
	case tool.rate && tool.corrected && s.open != nil:
		return s.open
	case tool.rate && !tool.corrected && s.capped != nil:
		return s.capped
	case tool.rate && s.open != nil:
		return s.open
	}
	return s.closed
}

// conformance is the record of the matrix's runs (testdata/conformance.json).
type conformance struct {
	// Load is /proc/loadavg before and after each condition's matrix.
	Load  map[string]string `json:"load"`
	Cells []confCell        `json:"cells"`
}

// confCell is what one cell's runs saw: the verdict kind by condition, and the share of the
// machine used outside the run (the test's own measure) by condition.
type confCell struct {
	Server  string             `json:"server"`
	Tool    string             `json:"tool"`
	Seen    map[string]string  `json:"seen"`
	Outside map[string]float64 `json:"outside"`
}

// The conditions the matrix runs in.
const (
	quiet = "quiet"
	busy  = "busy"
)

const confPath = "testdata/conformance.json"

func readConformance(t *testing.T) conformance {
	t.Helper()
	c := conformance{Load: map[string]string{}}
	b, err := os.ReadFile(confPath)
	if os.IsNotExist(err) {
		return c
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", confPath, err)
	}
	return c
}

func (c conformance) cell(server, tool string) (confCell, bool) {
	i := slices.IndexFunc(c.Cells, func(x confCell) bool { return x.Server == server && x.Tool == tool })
	if i < 0 {
		return confCell{}, false
	}
	return c.Cells[i], true
}

// seen is the verdict seen in the condition, with the share outside the run, or "not run".
func (c conformance) seen(server, tool, cond string) string {
	x, ok := c.cell(server, tool)
	if !ok || x.Seen[cond] == "" {
		return "not run"
	}
	return fmt.Sprintf("`%s` (%.0f %%)", x.Seen[cond], 100*x.Outside[cond])
}

// render is docs/MEASUREMENTS.md's conformance table: every cell's acceptable verdicts and what
// each condition saw, then the rows' reasons and the load averages.
func (c conformance) render() string {
	var b strings.Builder
	b.WriteString("| server (truth) | tool | right or cannot tell | quiet | busy core |\n| --- | --- | --- | --- | --- |\n")
	for _, s := range confServers {
		for _, tool := range confTools {
			acc := slices.Clone(s.accepts(tool))
			for i, k := range acc {
				acc[i] = "`" + k + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", s.name, tool.name, strings.Join(acc, ", "),
				c.seen(s.name, tool.name, quiet), c.seen(s.name, tool.name, busy))
		}
	}
	b.WriteString("\nThe servers, and why their sets hold what they hold:\n\n")
	for _, s := range confServers {
		fmt.Fprintf(&b, "- **%s**: %s; fixed rate %d req/s. %s.\n", s.name, s.truth, s.rate, upperFirst(s.why))
	}
	b.WriteString("\nLoad average (1, 5, 15 min) before and after the last run of each condition (of the cells that run chose):\n\n")
	for _, k := range slices.Sorted(maps.Keys(c.Load)) {
		fmt.Fprintf(&b, "- %s: %s\n", k, c.Load[k])
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// TestConformanceDoc fails when docs/MEASUREMENTS.md's conformance table is not the rendering of
// testdata/conformance.json and the matrix; -update rewrites it.
func TestConformanceDoc(t *testing.T) {
	c := readConformance(t)
	for _, x := range c.Cells {
		if !slices.ContainsFunc(confServers, func(s confServer) bool { return s.name == x.Server }) ||
			!slices.ContainsFunc(confTools, func(tl confTool) bool { return tl.name == x.Tool }) {
			t.Errorf("%s: cell %s x %s is in no row or column of the matrix", confPath, x.Server, x.Tool)
		}
	}
	docPath := filepath.Join(testEnv.root, "docs/MEASUREMENTS.md")
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start, end := "<!-- conformance:start -->\n", "<!-- conformance:end -->"
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q block", docPath, strings.TrimSpace(start), end)
	}
	fresh := doc[:i+len(start)] + c.render() + doc[j:]
	switch {
	case fresh == doc:
	case *update:
		if err := os.WriteFile(docPath, []byte(fresh), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("%s is stale: run go test ./internal/e2e -run TestConformanceDoc -update", docPath)
	}
}
