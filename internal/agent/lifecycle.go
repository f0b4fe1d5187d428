package agent

import (
	"context"
	"os"
	"strings"

	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
)

// errStopping says a step was cut short because the job is being stopped.
var errStopping = runtime.ErrStopping

// startJob moves a New (or uploaded Waiting) job to Initializing and starts its run goroutine. A
// skipped job is left as it is.
func (a *Agent) startJob(j *job) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.skipped != "":
		return nil
	case j.busy:
		return conflict("job %s: its source upload is still being extracted", j.id)
	case j.state == api.StateWaiting && len(j.awaitedLocked()) > 0:
		return conflict("job %s waits for the upload of %s (PUT /jobs/%s/source, ?name= for a named source)",
			j.id, strings.Join(j.awaitedLocked(), ", "), j.id)
	case j.state != api.StateNew && j.state != api.StateWaiting:
		return conflict("job %s is %s: it can only be started once", j.id, j.state)
	}
	if err := j.moveLocked(api.StateInitializing, "start"); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	j.cancel, j.done = cancel, make(chan struct{})
	go a.run(ctx, j)
	return nil
}

// advance moves the job forward unless a stop came first (then errStopping, and no transition).
func (j *job) advance(to api.JobState, why string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.state == api.StateStopping {
		return errStopping
	}
	return j.moveLocked(to, why)
}

// finish is the run goroutine's last transition: Stopped after a stop request or a clean end,
// Failed with the error otherwise.
func (j *job) finish(err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.state == api.StateStopping:
		_ = j.moveLocked(api.StateStopped, "stopped")
	case err != nil:
		j.errMsg = err.Error()
		_ = j.moveLocked(api.StateFailed, firstLine(j.errMsg))
	default:
		_ = j.moveLocked(api.StateStopped, "finished")
	}
}

// stop ends the job: a job never started becomes Stopped; a running one goes Stopping and its
// run goroutine kills the process group. stop returns once that goroutine has returned.
func (j *job) stop(why string) {
	j.mu.Lock()
	if j.done == nil {
		if j.state == api.StateNew || j.state == api.StateWaiting {
			_ = j.moveLocked(api.StateStopped, why)
		}
		j.mu.Unlock()
		return
	}
	if !j.state.Terminal() && j.state != api.StateStopping {
		_ = j.moveLocked(api.StateStopping, why)
	}
	cancel, done := j.cancel, j.done
	j.mu.Unlock()
	cancel()
	<-done
}

// deleteJob stops the job, removes its folder and forgets it.
func (a *Agent) deleteJob(j *job, why string) api.JobStatus {
	j.closeUploads(why)
	j.stop(why)
	j.mu.Lock()
	first := !j.deleted
	if first {
		j.deleted = true
		if err := os.RemoveAll(j.dir); err != nil {
			j.log.Warn("job folder not removed", "dir", j.dir, "err", err)
		}
		_ = os.RemoveAll(j.dir + filesSuffix)
		_ = j.moveLocked(api.StateDeleted, why)
	}
	j.mu.Unlock()
	if r, ok := j.rt.(runtime.SourceReuser); ok && first {
		a.goAfter(func(ctx context.Context) { r.Replenish(ctx, j.rj) }) // off the answer's path
	}
	a.mu.Lock()
	delete(a.jobs, j.id)
	a.mu.Unlock()
	return j.status()
}

// goAfter runs f in the background until Shutdown, which waits for it; once Shutdown waits, f is
// not run.
func (a *Agent) goAfter(f func(ctx context.Context)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.afterClosed {
		return
	}
	a.after.Go(func() { f(a.afterCtx) })
}
