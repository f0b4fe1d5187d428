package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/source"
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
	if err := json.NewDecoder(io.LimitReader(r.Body, maxJobBody)).Decode(&spec); err != nil {
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

func (a *Agent) handleSource(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	if err := j.beginUpload(); err != nil {
		return nil, err
	}
	if j.status().Skipped != "" {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, a.opts.MaxUpload))
		j.endUpload(false)
		return j.status(), nil
	}
	body := http.MaxBytesReader(nil, r.Body, a.opts.MaxUpload)
	err = source.Extract(body, j.dir, 8*a.opts.MaxUpload)
	j.endUpload(err == nil)
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		j.log.Info("source extracted")
		return j.status(), nil
	case errors.As(err, &tooBig):
		err = &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("job %s: source upload larger than %d bytes", j.id, a.opts.MaxUpload)}
	case errors.Is(err, source.ErrBadArchive):
		err = badRequest("job %s: source: %v", j.id, err)
	}
	if rerr := j.resetDir(); rerr != nil {
		j.log.Warn("job folder not reset after a failed upload", "err", rerr)
	}
	return nil, err
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

// beginUpload claims the job for an upload: only before it starts, one at a time.
func (j *job) beginUpload() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.busy:
		return conflict("job %s: another upload is in progress", j.id)
	case j.skipped == "" && j.state != api.StateNew && j.state != api.StateWaiting:
		return conflict("job %s is %s: its source can only be uploaded before it starts", j.id, j.state)
	}
	j.busy = true
	return nil
}

func (j *job) endUpload(ok bool) {
	j.mu.Lock()
	j.busy = false
	j.uploaded = j.uploaded || ok
	j.leaseAt = time.Now()
	j.mu.Unlock()
}

// resetDir empties the job folder (after a failed upload, so a retry starts clean).
func (j *job) resetDir() error {
	if err := os.RemoveAll(j.dir); err != nil {
		return err
	}
	j.mu.Lock()
	j.uploaded = false
	j.mu.Unlock()
	return os.Mkdir(j.dir, 0o755)
}
