// Command bench measures what Crankshaft's performance goals are about and writes
// docs/PERFORMANCE.md (`make bench`): CPU time per request of the apps against nginx and of
// `crank load` against wrk and bombardier (server pinned to CPU 0, client to CPU 1, rounds
// alternated), the agent's own CPU while it samples a job, and crank's time from start to the
// first request with a cached build. Every process it starts is in a process group of its own
// and is ended on return, on SIGINT and on SIGTERM.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
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
	tmp, err := os.MkdirTemp("", "crank-bench-")
	if err != nil {
		log.Error("bench", "err", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	e := &env{cfg: cfg, log: log, procs: newProcs(log), tmp: tmp}
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
	doc := renderReport(rep)
	fmt.Fprint(stdout, doc)
	if err := os.WriteFile(cfg.out, []byte(doc), 0o644); err != nil {
		log.Error("bench: write the report", "err", err)
		return 1
	}
	log.Info("report written", "file", cfg.out, "elapsed", time.Since(rep.Date).Round(time.Second))
	return 0
}

// bench runs the sections asked for and gathers the report.
func (e *env) bench(ctx context.Context) (*report, error) {
	rep := &report{Date: time.Now(), Config: e.cfg, Machine: readMachine(), Notes: notes}
	rep.LoadBefore = loadAverage()
	if err := e.findTools(ctx); err != nil {
		return nil, err
	}
	rep.Tools = e.tools.versions
	e.log.Info("bench starting", "rounds", e.cfg.rounds, "seconds", e.cfg.seconds, "estimate", e.estimate().Round(time.Second))
	if e.cfg.wants(sectionServers) || e.cfg.wants(sectionGenerators) {
		rep.Comparisons = e.compare(ctx)
	}
	if e.cfg.wants(sectionProtocols) && ctx.Err() == nil {
		rep.Comparisons = append(rep.Comparisons, e.protocolsComparison(ctx))
	}
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
	rep.Elapsed = time.Since(rep.Date)
	return rep, nil
}
