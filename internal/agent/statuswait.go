package agent

import (
	"context"
	"net/http"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// A status read may wait for the job's next state change: GET /jobs/{id}?changedFrom=STATE&wait=MS
// answers once the job's state is no longer STATE, or after MS milliseconds (at most
// api.MaxStatusWait), whichever comes first. The controller reads a starting server's status so,
// and learns that it is ready when it is, not at its next poll. An agent that does not know the
// parameters answers at once (Info.StatusWait says it knows them).

// statusWait reads the request's changedFrom and wait: no wait without both.
func statusWait(r *http.Request) (api.JobState, time.Duration, error) {
	q := r.URL.Query()
	from, ms := api.JobState(q.Get("changedFrom")), q.Get("wait")
	if from == "" || ms == "" {
		return "", 0, nil
	}
	wait, err := time.ParseDuration(ms + "ms")
	if err != nil || wait < 0 {
		return "", 0, badRequest("wait: want milliseconds, got %q", ms)
	}
	return from, min(wait, api.MaxStatusWait), nil
}

// waitChange returns once the job's state is not from, after wait, or when ctx ends.
func (j *job) waitChange(ctx context.Context, from api.JobState, wait time.Duration) {
	j.mu.Lock()
	state, changed := j.state, j.changed
	j.mu.Unlock()
	if state != from || changed == nil {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-changed:
	case <-t.C:
	case <-ctx.Done():
	}
}
