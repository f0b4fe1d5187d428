package agent

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
)

// maxReuseBody caps a source reuse request (a digest and a proof).
const maxReuseBody = 4 << 10

// handleReuse takes the job's own source from the build cache instead of an upload, when its
// runtime keeps builds and the controller proves it has the content (process.ReuseSource says
// why that gives a job nothing it could not have built itself). It is claimed as an upload is:
// only before the job starts, once, never while it is being deleted. A miss leaves the folder
// empty and the source still awaited: the controller uploads it.
func (a *Agent) handleReuse(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	var req api.SourceReuse
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxReuseBody)).Decode(&req); err != nil {
		return nil, badRequest("job %s: source reuse: bad JSON: %v", j.id, err)
	}
	reuser, ok := j.rt.(runtime.SourceReuser)
	switch {
	case j.spec.Source == nil || j.spec.Source.LocalFolder == "":
		return nil, badRequest("job %s has no source to upload", j.id)
	case j.status().Skipped != "":
		return api.SourceReused{Why: "the job is skipped"}, nil
	case !ok || !j.reusable():
		return api.SourceReused{Why: "the job's sources cannot be taken from the build cache (named sources, build files or a container)"}, nil
	}
	if _, err := j.beginUpload(r.Context(), ""); err != nil {
		return nil, err
	}
	reused, why, err := reuser.ReuseSource(r.Context(), j.rj, req.Digest, req.Proof)
	if err != nil { // it wrote into the folder: empty it, so the upload that follows starts clean
		j.log.Warn("source not taken from the build cache", "err", err)
		why = "restoring the cached build failed"
		if rerr := j.resetDir(); rerr != nil {
			j.endUpload(false, "", "")
			return nil, errors.Join(err, rerr)
		}
	}
	if !reused {
		j.endUpload(false, "", "")
		return api.SourceReused{Why: why}, nil
	}
	j.endUpload(true, "", req.Digest)
	j.log.Info("source taken from the build cache", "digest", req.Digest, "key", j.rj.Restored)
	return api.SourceReused{Reused: true}, nil
}

// reusable: the job's own upload is its only source, so its build cache identity is that
// upload's digest alone (sourcesIdentity).
func (j *job) reusable() bool {
	return len(j.spec.Sources) == 0 && len(j.spec.BuildFiles) == 0
}
