package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// searchCode is the exit status of a search that ended with err, said on stderr: a search that
// cannot tell (its steps contradict each other, its bracket's upper end failed only on a disturbed
// machine, or it stopped before its bracket was within the precision) exits ExitCannotTell, never
// 0 on a guess.
func searchCode(ctx context.Context, stderr io.Writer, res capacity.Result, err error) int {
	switch {
	case err == nil && res.Inconclusive != "":
		fmt.Fprintf(stderr, "crank capacity: cannot tell the capacity: %s; %s as measured; what would tell: %s\n", res.Inconclusive, res.Bracket(), res.WouldTell)
		return ExitCannotTell
	case err == nil && res.Rate == 0: // every rate tried failed on a quiet machine, down to the lowest
		fmt.Fprintf(stderr, "crank capacity: no rate tried met the service level objectives\n")
		return runner.ExitFailed
	case err == nil:
		return runner.ExitOK
	case errors.Is(err, capacity.ErrUnmet):
		fmt.Fprintf(stderr, "crank capacity: %v\n", err)
		return runner.ExitFailed
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "crank capacity: interrupted: %v\n", err)
		return runner.ExitInterrupted
	}
	fmt.Fprintf(stderr, "crank capacity: %v\n", err)
	return runner.ExitFailed
}

// answer is a search's result file: the answer at the root under "capacity", the knee step's
// results as the jobs.
func (s *search) answer(res capacity.Result, knee map[string]*results.JobResult, code int, started time.Time, variant map[string]string) *results.Result {
	out := &results.Result{StartTime: started.UTC(), Scenario: s.src.Scenario, Profiles: s.src.Profiles, ReturnCode: code,
		Variant: variant, JobResults: results.JobResults{Jobs: knee, Properties: s.c.Plan.Run.Properties}}
	if out.JobResults.Jobs == nil {
		out.JobResults.Jobs = map[string]*results.JobResult{}
	}
	if b, err := json.Marshal(res); err == nil {
		out.Capacity = b
	}
	return out
}

// write prints the answer (the capacity output: a search's steps and answer, a matrix's
// capacities side by side) and writes its result file (--json); an error when the file was not
// written (said).
func (s *search) write(ctx context.Context, out *results.Result) error {
	_ = s.c.WriteTo(ctx, output.Capacity, "", out) // a failure is said by the output; the exit status is the search's
	if s.c.JSON == "" {
		return nil
	}
	return s.c.WriteTo(ctx, output.JSON, s.c.JSON, out)
}

// publish sends the answer and every step to InfluxDB when it is configured (spooled when it does
// not take them), saying what it did; false when even the spool failed. The knee's own results
// are left out: a step at a capped rate is not the scenario's run, and the dashboards' trends of
// crank_summary would show it as one.
func (s *search) publish(ctx context.Context, out *results.Result) bool {
	answer := *out
	answer.JobResults.Jobs = map[string]*results.JobResult{}
	return s.c.WriteTo(ctx, output.Influx, "", &answer) == nil
}
