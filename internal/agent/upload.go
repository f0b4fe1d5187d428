package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/extract"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/reqsign"
)

// handleSource extracts a job's source upload into its folder. The upload ends with the job: a
// DELETE, the lease loop or the agent's shutdown cancels it and waits for the extraction to stop
// before the folder is removed. A client that sends nothing for a lease is cut off (408).
// name is a named source's (Job.Sources), "" the job's own, or buildFilesKey.
func (a *Agent) handleSource(w http.ResponseWriter, r *http.Request, name string) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	ctx, err := j.beginUpload(r.Context(), name)
	if err != nil {
		return nil, err
	}
	if j.status().Skipped != "" {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, a.opts.MaxUpload))
		j.endUpload(false, name, "")
		return j.status(), nil
	}
	root, err := j.uploadTarget(name)
	if err != nil {
		j.endUpload(false, name, "")
		return nil, err
	}
	defer root.Close()
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // the answer comes after the whole upload
	defer func() { _ = rc.SetWriteDeadline(time.Now().Add(writeTimeout)) }()
	body := &stallReader{r: http.MaxBytesReader(nil, r.Body, a.opts.MaxUpload), rc: rc, idle: a.opts.Lease}
	// A read waiting on a silent client is cut when the job goes; the connection is then closed.
	unblock := context.AfterFunc(ctx, func() { _ = rc.SetReadDeadline(time.Now()) })
	x, err := extract.ExtractManifest(ctx, body, root, extract.Limits{MaxBytes: 8 * a.opts.MaxUpload, MaxEntries: a.opts.MaxUploadEntries})
	digest := x.Digest
	if err == nil { // to its end: a signed body is checked there (reqsign.ErrBody), before it counts
		_, err = io.Copy(io.Discard, body)
	}
	if !unblock() { // before endUpload ends ctx: the deadline must not fall on the connection's next request
		w.Header().Set("Connection", "close")
	}
	_ = rc.SetReadDeadline(time.Time{})
	if err == nil {
		if name == "" && j.reusable() {
			j.rj.Manifest = x.Manifest // read by the run, which starts after the upload ends
		}
		j.endUpload(true, name, digest)
		j.log.Info("source extracted", "source", uploadLabel(name), "digest", digest)
		return j.status(), nil
	}
	err = a.uploadError(j, ctx, err)
	var deleted *jobDeleted
	if !errors.As(err, &deleted) { // a deleted job's folder is removed by deleteJob
		if rerr := j.resetUpload(name); rerr != nil {
			j.log.Warn("job folder not reset after a failed upload", "source", uploadLabel(name), "err", rerr)
		}
	}
	j.endUpload(false, name, "")
	return nil, err
}

// uploadError gives a failed upload its HTTP status: every fault of the client's is a 4xx.
func (a *Agent) uploadError(j *job, ctx context.Context, err error) error {
	var tooBig *http.MaxBytesError
	var deleted *jobDeleted
	switch {
	case errors.Is(err, reqsign.ErrBody):
		return &httpError{http.StatusUnauthorized, fmt.Sprintf("job %s: source upload refused, its files removed: %v", j.id, err)}
	case errors.As(context.Cause(ctx), &deleted):
		return &httpError{http.StatusConflict, deleted.Error()}
	case errors.As(err, &tooBig):
		return &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("job %s: source upload larger than %d bytes (the agent's --max-upload)", j.id, a.opts.MaxUpload)}
	case errors.Is(err, extract.ErrTooManyEntries):
		return &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("job %s: source: %v (the agent's --max-upload-entries)", j.id, err)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &httpError{http.StatusRequestTimeout, fmt.Sprintf("job %s: source upload: nothing received for %s (the agent's lease)", j.id, a.opts.Lease)}
	case ctx.Err() != nil:
		return &httpError{http.StatusBadRequest, fmt.Sprintf("job %s: source upload cancelled by the client (%v)", j.id, err)}
	case errors.Is(err, extract.ErrBadArchive):
		return badRequest("job %s: source: %v", j.id, err)
	}
	return err
}

// jobDeleted is the cause an upload is cancelled with when its job goes.
type jobDeleted struct{ id, why string }

func (e *jobDeleted) Error() string {
	return fmt.Sprintf("job %s was deleted during its source upload (%s)", e.id, e.why)
}

// stallReader pushes the connection's read deadline back by idle at every read, so an upload
// may take as long as it needs but a client that stops sending is cut off after idle.
type stallReader struct {
	r    io.Reader
	rc   *http.ResponseController
	idle time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	_ = s.rc.SetReadDeadline(time.Now().Add(s.idle)) // ErrNotSupported: the server's ReadTimeout holds
	return s.r.Read(p)
}

// beginUpload claims the job for an upload: only before it starts, one at a time, never once it
// is being deleted. The context it returns ends when the request's does or the job is deleted.
func (j *job) beginUpload(parent context.Context, name string) (context.Context, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, done := j.uploads[name]
	switch {
	case j.uploadsClosed:
		return nil, conflict("job %s is being deleted", j.id)
	case j.busy:
		return nil, conflict("job %s: another upload is in progress", j.id)
	case j.skipped == "" && j.state != api.StateNew && j.state != api.StateWaiting:
		return nil, conflict("job %s is %s: its source can only be uploaded before it starts", j.id, j.state)
	case done: // a second upload would land on top of the first, and key the build cache by its digest alone
		return nil, conflict("job %s: %s was uploaded already", j.id, uploadLabel(name))
	}
	ctx, cancel := context.WithCancelCause(parent)
	j.busy, j.abort, j.uploadDone = true, cancel, make(chan struct{})
	return ctx, nil
}

func (j *job) endUpload(ok bool, name, digest string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.busy = false
	if ok {
		if j.uploads == nil {
			j.uploads = map[string]string{}
		}
		j.uploads[name] = digest
	}
	j.leaseAt = time.Now()
	j.abort(nil)
	close(j.uploadDone)
	j.abort, j.uploadDone = nil, nil
}

// closeUploads refuses new uploads, cancels the one in progress and waits for it to stop
// writing into the folder.
func (j *job) closeUploads(why string) {
	j.mu.Lock()
	j.uploadsClosed = true
	abort, done := j.abort, j.uploadDone
	j.mu.Unlock()
	if abort == nil {
		return
	}
	abort(&jobDeleted{id: j.id, why: why})
	<-done
}

// resetDir empties the job folder and forgets its uploads (after a failed upload of the job's
// own source, so a retry starts clean).
func (j *job) resetDir() error {
	if err := os.RemoveAll(j.dir); err != nil {
		return err
	}
	j.mu.Lock()
	j.uploads = nil
	j.rj.Manifest, j.rj.Restored = nil, ""
	j.mu.Unlock()
	return os.Mkdir(j.dir, 0o700) // private, as newJob makes it
}
