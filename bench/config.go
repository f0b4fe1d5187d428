package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The sections of the bench.
const (
	sectionServers    = "servers"    // the apps against nginx, under wrk
	sectionGenerators = "generators" // crank load against wrk and bombardier, on nginx
	sectionProtocols  = "protocols"  // crank load against wrk (TLS), h2load (h2c) and ghz (gRPC)
	sectionAgent      = "agent"      // the agent's CPU while it samples a job
	sectionOverhead   = "overhead"   // crank's start to the first request
)

var allSections = []string{sectionServers, sectionGenerators, sectionProtocols, sectionAgent, sectionOverhead}

// config is the bench's command line.
type config struct {
	runs            int // bench runs, each starting the servers afresh: the unit of replication
	rounds, seconds int
	// precision (percent) and roundsCap: a run adds rounds, up to roundsCap, for the rows whose
	// ratio's 95 % interval is wider than ± precision over the runs so far (0: none).
	precision    float64
	roundsCap    int
	connections  int
	pipeline     int
	agentWindow  time.Duration
	overheadRuns int
	limit        time.Duration
	sections     []string
	out          string
	json         string // the crank-shaped result: out's name with .json unless --json says
	nginx, wrk   string // the programs to use: a path, or a name looked up on PATH
	repo         string // the repository root (the current folder)
	bin          string // where `make build` put crank, crank-agent and bombardier
}

// maxRounds bounds the rounds of a comparison: disturbed rounds are run again, up to as many
// again as asked for.
func (c config) maxRounds() int { return 2 * c.rounds }

func (c config) wants(section string) bool { return slices.Contains(c.sections, section) }

func parseFlags(args []string, stderr io.Writer) (config, error) {
	c := config{repo: ".", bin: "bin"}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.runs, "runs", 3, "bench runs, each starting the servers afresh (a row's figure is the median of the rounds of all runs; each run is one iteration of the JSON result)")
	fs.IntVar(&c.rounds, "rounds", 2, "undisturbed rounds wanted per comparison in each run (each runs every subject once, alternating; at most twice as many are run)")
	fs.Float64Var(&c.precision, "precision", 5, "percent: a run adds rounds for the rows whose ratio is not yet known within ± this (the 95 % interval of the median of their rounds, over the runs so far); 0: none")
	fs.IntVar(&c.roundsCap, "max-rounds", 12, "the most rounds a run has, those added for --precision included")
	fs.IntVar(&c.seconds, "seconds", 3, "seconds of each measured run")
	fs.IntVar(&c.connections, "connections", 64, "connections of every load generator")
	fs.IntVar(&c.pipeline, "pipeline", 16, "pipeline depth of the pipelined runs")
	fs.DurationVar(&c.agentWindow, "agent-window", 10*time.Second, "how long the agent's CPU is measured per case")
	fs.IntVar(&c.overheadRuns, "overhead-runs", 3, "timed crank runs with a cached build (after one that warms the cache)")
	fs.DurationVar(&c.limit, "limit", 30*time.Minute, "stop measuring after this long and write what was measured")
	only := fs.String("only", strings.Join(allSections, ","), "sections to run")
	fs.StringVar(&c.nginx, "nginx", "nginx", "nginx to run (a path, or a name on PATH or in /usr/sbin)")
	fs.StringVar(&c.wrk, "wrk", "wrk", "wrk to run (a path, or a name on PATH)")
	fs.StringVar(&c.out, "out", "docs/PERFORMANCE.md", "the report to write")
	fs.StringVar(&c.json, "json", "", "the tables' figures as a crank result to write, for crank compare (default: --out with .json for .md)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.json == "" {
		c.json = strings.TrimSuffix(c.out, filepath.Ext(c.out)) + ".json"
	}
	var problems []error
	if c.runs < 1 || c.rounds < 1 || c.seconds < 1 || c.connections < 1 || c.pipeline < 2 || c.overheadRuns < 1 {
		problems = append(problems, errors.New("--runs, --rounds, --seconds, --connections and --overhead-runs must be >= 1, --pipeline >= 2"))
	}
	if c.precision < 0 || c.roundsCap < c.rounds {
		problems = append(problems, fmt.Errorf("--precision must be >= 0 and --max-rounds at least --rounds (%d)", c.rounds))
	}
	if filepath.Clean(c.json) == filepath.Clean(c.out) {
		problems = append(problems, fmt.Errorf("--json %s: the report (--out) is written there", c.json))
	}
	if c.agentWindow < time.Second {
		problems = append(problems, errors.New("--agent-window must be at least 1s"))
	}
	for s := range strings.SplitSeq(*only, ",") {
		if s = strings.TrimSpace(s); !slices.Contains(allSections, s) {
			problems = append(problems, fmt.Errorf("--only: unknown section %q (want %s)", s, strings.Join(allSections, ", ")))
		}
		c.sections = append(c.sections, s)
	}
	if err := errors.Join(problems...); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return c, err
	}
	return c, nil
}

// estimate is the expected run time of the sections asked for (without builds): each comparison's
// trials, in rounds plus one for the warm-ups, in every bench run.
func (e *env) estimate() time.Duration {
	run := func(trials int) time.Duration {
		per := time.Duration(trials) * (time.Duration(e.cfg.seconds)*time.Second + 300*time.Millisecond)
		return time.Duration(e.cfg.runs*(e.cfg.rounds+1)) * per
	}
	var d time.Duration
	if e.cfg.wants(sectionServers) {
		d += run(8)
	}
	if e.cfg.wants(sectionGenerators) {
		d += run(7)
	}
	if e.cfg.wants(sectionProtocols) {
		d += run(6)
	}
	if e.cfg.wants(sectionAgent) {
		d += 4 * (e.cfg.agentWindow + 2*time.Second)
	}
	if e.cfg.wants(sectionOverhead) {
		d += time.Duration(e.cfg.overheadRuns+1) * 4 * time.Second
	}
	return d
}
