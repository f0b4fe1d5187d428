package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/crankshaft/crankshaft/internal/api"
)

// maxJobBody caps a job submission.
const maxJobBody = 4 << 20

// lookup finds the job named in the path and renews its lease: any request about a job shows its
// controller is still there.
func (a *Agent) lookup(r *http.Request) (*job, error) {
	id := r.PathValue("id")
	a.mu.Lock()
	j, ok := a.jobs[id]
	a.mu.Unlock()
	if !ok {
		return nil, notFound("job %q not found (deleted, lease expired, or another agent's)", id)
	}
	j.renew()
	return j, nil
}

func (a *Agent) handleCreate(r *http.Request) (any, error) {
	var spec api.Job
	err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxJobBody)).Decode(&spec)
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("job: larger than %d bytes, the agent's cap on a job submission", int64(maxJobBody))}
	}
	if err != nil {
		return nil, badRequest("job: bad JSON: %v", err)
	}
	j, err := a.createJob(spec)
	if err != nil {
		return nil, err
	}
	return created{api.Created{ID: j.id}}, nil
}

func (a *Agent) handleList(*http.Request) (any, error) {
	list := []api.JobStatus{}
	for _, j := range a.allJobs() {
		list = append(list, j.status())
	}
	sort.Slice(list, func(i, k int) bool { return list[i].ID < list[k].ID })
	return list, nil
}

func (a *Agent) handleStart(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	if err := a.startJob(j); err != nil {
		return nil, err
	}
	return j.status(), nil
}

func (a *Agent) handleStatus(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	from, wait, err := statusWait(r)
	if err != nil {
		return nil, err
	}
	if wait > 0 {
		j.waitChange(r.Context(), from, wait)
	}
	return j.status(), nil
}

func (a *Agent) handleOutput(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	var since int64
	if s := r.URL.Query().Get("since"); s != "" {
		if since, err = strconv.ParseInt(s, 10, 64); err != nil || since < 0 {
			return nil, badRequest("since=%q: want a byte offset", s)
		}
	}
	b := j.out.Since(since)
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func (a *Agent) handleMeasurements(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	return a.measurements(j), nil
}

func (a *Agent) handleStop(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	j.stop("stop requested")
	return j.status(), nil
}

func (a *Agent) handleDelete(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	return a.deleteJob(j, "delete requested"), nil
}
