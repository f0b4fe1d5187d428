package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
)

// Set is the runtimes of an agent, in the order it asks them whether they take a job.
type Set []Runtime

// For is the first runtime of s that accepts the job (false: none does).
func (s Set) For(spec api.Job) (Runtime, bool) {
	for _, r := range s {
		if r.Accepts(spec) {
			return r, true
		}
	}
	return nil, false
}

// Describe lets every runtime fill its part of info.
func (s Set) Describe(ctx context.Context, info *api.Info) {
	for _, r := range s {
		r.Describe(ctx, info)
	}
}

// Cleanup runs every runtime's Cleanup, each to its end or ctx's; it returns their errors.
func (s Set) Cleanup(ctx context.Context) error {
	var errs []error
	for _, r := range s {
		errs = append(errs, r.Cleanup(ctx))
	}
	return errors.Join(errs...)
}

// NewJobID is a new job id: 16 hexadecimal digits. A job's folder is named by it (and the folders
// beside it by it and a suffix), which is how a runtime's Cleanup knows them.
func NewJobID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return hex.EncodeToString(b)
}

// IsJobID reports whether name has the form NewJobID gives job ids.
func IsJobID(name string) bool {
	if len(name) != 16 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}

// Step runs one process of a job to its end (a build, a clone) and fails with its last lines of
// output when it does not exit 0; a stop (ctx's end) stops it with StopGrace and fails
// with ErrStopping.
func Step(ctx context.Context, j *Job, what string, spec proc.Spec) error {
	from := j.Out.Len()
	p, err := proc.Start(spec)
	if err != nil {
		return fmt.Errorf("job %s: %s: %w", j.ID, what, err)
	}
	select {
	case <-ctx.Done():
		p.Stop(StopGrace)
		return ErrStopping
	case <-p.Wait():
	}
	if e := p.Exit(); !e.Success() {
		return fmt.Errorf("job %s: %s failed (%s); last output:\n%s", j.ID, what, e, j.Out.Tail(from, TailLines))
	}
	return nil
}
