// Command bench measures what Crankshaft's performance goals are about and writes
// docs/PERFORMANCE.md (`make bench`): CPU time per request of the apps against nginx and of
// `crank load` against wrk and bombardier (server pinned to CPU 0, client to CPU 1, rounds
// alternated, in bench runs that each start the servers afresh), the agent's own CPU while it samples a job, and crank's time from start to the
// first request with a cached build. The tables' figures also go to docs/PERFORMANCE.json as a
// crank result (resultjson.go), written first, for crank compare and crank regressions. Every process it starts is in a process group of its own
// and is ended on return, on SIGINT and on SIGTERM.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole bench; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	// The folders of the outputs exist before minutes of measuring, not after.
	for flag, path := range map[string]string{"--out": cfg.out, "--json": cfg.json} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintf(stderr, "bench: %s %s: %v\n", flag, path, err)
			return 2
		}
	}
	tmp, err := os.MkdirTemp("", "crank-bench-")
	if err != nil {
		log.Error("bench", "err", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	e := &env{cfg: cfg, log: log, procs: newProcs(log), tmp: tmp, pooled: map[string][]sample{}}
	defer e.procs.stopAll()
	limited, cancel := context.WithTimeout(ctx, cfg.limit)
	defer cancel()
	rep, err := e.bench(limited)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted: %w", ctx.Err())
	}
	if err != nil {
		log.Error("bench", "err", err)
		return 1
	}
	code := 0
	if err := writeResult(cfg.json, rep, log); err != nil {
		log.Error("bench: write the result", "file", cfg.json, "err", err)
		code = 1
	}
	doc := renderReport(rep)
	fmt.Fprint(stdout, doc)
	if err := safewrite.Replace(cfg.out, []byte(doc), safewrite.Output); err != nil {
		log.Error("bench: write the report", "file", cfg.out, "err", err)
		return 1
	}
	log.Info("report written", "file", cfg.out, "elapsed", time.Since(rep.Date).Round(time.Second))
	return code
}

// writeResult writes the report's tables as a crank result to path; figures that are not finite
// numbers are left out with why (results.Finite), each logged.
func writeResult(path string, rep *report, log *slog.Logger) error {
	res, err := benchResult(rep)
	if err != nil {
		return err
	}
	for _, note := range results.Finite(res) {
		log.Warn("bench result", "file", path, "left out", note)
	}
	b, err := results.Marshal(res)
	if err != nil {
		return err
	}
	if err := safewrite.Replace(path, b, safewrite.Output); err != nil {
		return err
	}
	log.Info("result written", "file", path, "jobs", len(res.JobResults.Jobs), "commit", rep.Commit)
	return nil
}

// bench runs the sections asked for and gathers the report.
func (e *env) bench(ctx context.Context) (*report, error) {
	rep := &report{Date: time.Now(), Config: e.cfg, Machine: readMachine(), Notes: notes}
	commit, err := repoCommit(ctx, e.cfg.repo)
	if err != nil {
		e.log.Warn("the commit measured is unknown", "err", err)
		commit = "unknown"
	}
	rep.Commit = commit
	rep.LoadBefore = loadAverage()
	rep.SyscallBefore = syscallCost()
	if err := e.findTools(ctx); err != nil {
		return nil, err
	}
	rep.Tools = e.tools.versions
	e.log.Info("bench starting", "runs", e.cfg.runs, "rounds", e.cfg.rounds, "seconds", e.cfg.seconds, "estimate", e.estimate().Round(time.Second))
	rep.Comparisons = e.comparisons(ctx)
	if e.cfg.wants(sectionAgent) && ctx.Err() == nil {
		a := e.agentCPU(ctx)
		rep.Agent = &a
	}
	if e.cfg.wants(sectionOverhead) && ctx.Err() == nil {
		o := e.overhead(ctx)
		rep.Overhead = &o
	}
	if ctx.Err() != nil {
		rep.Warning = fmt.Sprintf("This run hit the bench's time limit (--limit %s): the sections after that point are incomplete.", e.cfg.limit)
	}
	rep.LoadAfter = loadAverage()
	rep.SyscallAfter = syscallCost()
	rep.Elapsed = time.Since(rep.Date)
	return rep, nil
}
