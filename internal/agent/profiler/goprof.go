package profiler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/google/pprof/profile"
)

// Bounds on the Go profiles a job serves: each answer's size and time, and the CPU profile's
// chunk (a window is recorded as back-to-back chunks, merged: the window's end is known only when
// it comes, and Go's CPU profile is asked for a length up front).
const (
	maxGoProfile = 64 << 20
	goChunk      = time.Second
	goTimeout    = goChunk + 10*time.Second
	// goMergeEvery is how many chunks are kept before they are merged: merging is the agent's
	// work on the job's machine, so it is done rarely while the window is open (a merge's cost
	// grows with the profile's distinct stacks, not its length) and once more at the stop.
	goMergeEvery = 30
)

// goRun collects a job's Go profiles over a window: CPU in chunks, mutex and block as deltas.
type goRun struct {
	base   string // http://host:port/debug/pprof/
	client *http.Client
	log    *slog.Logger
	mutex0 *profile.Profile
	block0 *profile.Profile
	stopCh chan struct{}
	done   chan struct{}
	cpu    []*profile.Profile // the chunks so far, merged every goMergeEvery
	cpuErr error
}

func startGo(base string, log *slog.Logger) *goRun {
	g := &goRun{base: strings.TrimSuffix(base, "/") + "/", client: &http.Client{Timeout: goTimeout}, log: log,
		stopCh: make(chan struct{}), done: make(chan struct{})}
	g.mutex0, _ = g.fetch(context.Background(), "mutex")
	g.block0, _ = g.fetch(context.Background(), "block")
	go g.cpuLoop()
	return g
}

// cpuLoop asks for one-second CPU profiles until stopped and keeps them, merged now and then.
func (g *goRun) cpuLoop() {
	defer close(g.done)
	for {
		p, err := g.fetch(context.Background(), fmt.Sprintf("profile?seconds=%d", int(goChunk/time.Second)))
		if err != nil {
			g.cpuErr = err
		} else if g.cpu = append(g.cpu, p); len(g.cpu) >= goMergeEvery {
			g.mergeCPU()
		}
		select {
		case <-g.stopCh:
			return
		default:
		}
		if err != nil {
			select { // an app that does not answer is not asked in a busy loop
			case <-g.stopCh:
				return
			case <-time.After(goChunk):
			}
		}
	}
}

// stop ends the window: the chunk under way ends within goChunk (its samples after the window,
// with the load over, are the idle server's). It returns each profile or why there is none.
func (g *goRun) stop(ctx context.Context) map[string]result {
	close(g.stopCh)
	out := map[string]result{}
	select {
	case <-g.done:
		g.mergeCPU()
		out["go-cpu"] = result{err: g.cpuErr}
		if len(g.cpu) > 0 {
			out["go-cpu"] = result{p: g.cpu[0]}
		}
	case <-time.After(goTimeout):
		out["go-cpu"] = result{err: fmt.Errorf("no CPU profile within %s", goTimeout)}
	}
	out["go-mutex"] = g.delta(ctx, "mutex", g.mutex0)
	out["go-block"] = g.delta(ctx, "block", g.block0)
	return out
}

// mergeCPU merges the chunks kept into one. Chunks that do not merge (another sample type) are
// an error, and only the first is kept.
func (g *goRun) mergeCPU() {
	if len(g.cpu) < 2 {
		return
	}
	m, err := profile.Merge(g.cpu)
	if err != nil {
		g.cpuErr = err
		g.cpu = g.cpu[:1]
		return
	}
	g.cpu = []*profile.Profile{m}
}

// delta is a cumulative profile's growth since the window began.
func (g *goRun) delta(ctx context.Context, name string, before *profile.Profile) result {
	after, err := g.fetch(ctx, name)
	if err != nil || before == nil {
		return result{p: after, err: err}
	}
	before.Scale(-1)
	d, err := profile.Merge([]*profile.Profile{after, before})
	if err != nil {
		return result{err: fmt.Errorf("%s profile: %w", name, err)}
	}
	d = d.Compact()
	kept := d.Sample[:0]
	for _, s := range d.Sample {
		if s.Value[len(s.Value)-1] > 0 {
			kept = append(kept, s)
		}
	}
	d.Sample = kept
	d.DurationNanos = after.TimeNanos - before.TimeNanos
	return result{p: d.Compact()}
}

// fetch reads one profile (protobuf) from the job's /debug/pprof, bounded in size and time.
func (g *goRun) fetch(ctx context.Context, what string) (*profile.Profile, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.base+what, nil)
	if err != nil {
		return nil, err
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s%s: %s", g.base, what, resp.Status)
	}
	lr := &io.LimitedReader{R: resp.Body, N: maxGoProfile + 1}
	b, err := io.ReadAll(lr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: larger than %d bytes", what, maxGoProfile)
	}
	p, err := profiles.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s%s: not a profile: %w", g.base, what, err)
	}
	return p, nil
}
