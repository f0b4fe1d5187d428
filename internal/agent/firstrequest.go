package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/parsers/firstrequest"
)

// firstRequest times one request to an HTTP load job's URL before its warm-up and its load, as
// crank's load wrappers do, and records it as http/firstrequest. A request that gets no answer
// is a warning on the job, never a value; the load runs either way, as in crank.
func (a *Agent) firstRequest(ctx context.Context, j *job) {
	fr, ok := j.parser.(parsers.FirstRequester)
	if !ok || !j.spec.WaitForExit {
		return
	}
	args, err := proc.Split(j.spec.Arguments)
	var t parsers.Target
	if err == nil {
		t, err = fr.FirstRequest(args)
	}
	if errors.Is(err, parsers.ErrNotHTTP) {
		j.log.Debug("no first request", "why", err)
		return
	}
	if err != nil {
		j.warn(fmt.Sprintf("%s is not measured: %v", measure.FirstRequest, err))
		return
	}
	if t.BodyFile != "" {
		if t.Body, err = readBodyFile(j.dir, t.BodyFile); err != nil {
			j.warn(fmt.Sprintf("%s is not measured: %v", measure.FirstRequest, err))
			return
		}
	}
	res, err := firstrequest.Measure(ctx, t)
	if err != nil {
		if ctx.Err() == nil {
			j.warn(fmt.Sprintf("%s is not measured: %v", measure.FirstRequest, err))
		}
		return
	}
	if res.Status >= 400 { // timed all the same, as crank's wrappers time any answer
		j.warn(fmt.Sprintf("%s: the first request to %s was answered %d", measure.FirstRequest, t.URL, res.Status))
	}
	j.out.WriteString(fmt.Sprintf("first request: %.0f ms (status %d)\n", res.Millis(), res.Status))
	j.log.Info("first request", "url", t.URL, "http2", t.HTTP2, "ms", res.Millis(), "status", res.Status)
	j.record(api.Measurement{Name: measure.FirstRequest, Timestamp: time.Now(), Value: res.Millis()})
}

// maxFirstBody caps the body the first request sends (a load tool's request body).
const maxFirstBody = 16 << 20

// readBodyFile reads the tool's body file inside the job's folder, as the tool reads it there.
func readBodyFile(dir, name string) ([]byte, error) {
	rel := name
	if filepath.IsAbs(name) {
		r, err := filepath.Rel(dir, name)
		if err != nil {
			return nil, fmt.Errorf("body file %s: %w", name, err)
		}
		rel = r
	}
	f, err := os.OpenInRoot(dir, rel)
	if err != nil {
		return nil, fmt.Errorf("body file %s: %w", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFirstBody+1))
	if err != nil {
		return nil, fmt.Errorf("body file %s: %w", name, err)
	}
	if len(b) > maxFirstBody {
		return nil, fmt.Errorf("body file %s: larger than %d bytes", name, maxFirstBody)
	}
	return b, nil
}
