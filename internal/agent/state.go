package agent

import (
	"fmt"
	"slices"

	"github.com/crankshaft/crankshaft/internal/api"
)

// transitions is the job state machine, the only place it is written down: from each state, the
// states a job may go to. It is read-only.
//
//	New -> Waiting          the job's source is to be uploaded
//	New|Waiting -> Initializing   start: source (cache, clone) and build
//	Initializing -> Starting      warm-up run, process start, readiness
//	Starting -> Running           ready
//	Running -> Stopped            a waitForExit job (or a server) exited 0
//	* -> Stopping -> Stopped      stop, delete, lease expiry, shutdown
//	New|Waiting -> Stopped        stopped before it started (a skipped job stays New until then)
//	* -> Failed                   build, start, exit or parse failed
//	Stopped|Failed -> Deleted
var transitions = map[api.JobState][]api.JobState{
	api.StateNew:          {api.StateWaiting, api.StateInitializing, api.StateStopped, api.StateFailed},
	api.StateWaiting:      {api.StateInitializing, api.StateStopped, api.StateFailed},
	api.StateInitializing: {api.StateStarting, api.StateStopping, api.StateFailed},
	api.StateStarting:     {api.StateRunning, api.StateStopping, api.StateFailed},
	api.StateRunning:      {api.StateStopping, api.StateStopped, api.StateFailed},
	api.StateStopping:     {api.StateStopped, api.StateFailed},
	api.StateStopped:      {api.StateDeleted},
	api.StateFailed:       {api.StateDeleted},
}

// canMove reports whether the state machine allows from -> to.
func canMove(from, to api.JobState) bool {
	return slices.Contains(transitions[from], to)
}

// moveLocked applies one transition and logs it; j.mu must be held. An illegal transition changes
// nothing and is an error.
func (j *job) moveLocked(to api.JobState, why string) error {
	from := j.state
	if !canMove(from, to) {
		err := fmt.Errorf("job %s: illegal transition %s -> %s (%s)", j.id, from, to, why)
		j.log.Error("job state", "from", from, "to", to, "err", err)
		return err
	}
	j.state = to
	if j.changed != nil {
		close(j.changed)
	}
	j.changed = make(chan struct{})
	j.log.Info("job state", "from", from, "to", to, "why", why)
	return nil
}

// move is moveLocked taking the lock.
func (j *job) move(to api.JobState, why string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.moveLocked(to, why)
}
