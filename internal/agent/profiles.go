package agent

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/crankshaft/crankshaft/internal/agent/profiler"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
)

// newPerfProbe says once, when first asked, whether perf can record here (collect's check at
// submission; Agent.perfProbe).
func newPerfProbe() func() error {
	return sync.OnceValue(func() error { return profiler.Probe(context.Background()) })
}

// describePerf is the agent's part of /info about perf.
//
// It only looks perf up: /info must answer at once even on a starved machine (a probe recording
// `true` took seconds at 1 % of a core and a split load's starved agent failed the run on /info).
// Whether perf may record is checked when a job asks for collect (checkProfiles).
func describePerf(info *api.Info) {
	if _, err := exec.LookPath("perf"); err != nil {
		info.Perf = "perf is missing on the agent's machine (Debian: apt-get install linux-perf)"
		return
	}
	info.Perf = "available"
}

// checkProfiles refuses, at submission, a profile this agent cannot record.
func checkProfiles(j api.Job, perfProbe func() error) []string {
	var problems []string
	if (j.Collect || j.GoProfiles) && j.WaitForExit {
		problems = append(problems, "collect and goProfiles profile a job that runs until stopped (a server) over the load's window; this job waits for its exit")
	}
	if j.Collect {
		if _, err := profiler.ParseCollectArguments(j.CollectArguments); err != nil {
			problems = append(problems, err.Error())
		}
		if err := perfProbe(); err != nil {
			problems = append(problems, "collect: "+err.Error())
		}
	} else if j.CollectArguments != "" {
		problems = append(problems, "collectArguments without collect: true")
	}
	if j.GoProfiles && j.MetricsPort == 0 && j.Port == 0 {
		problems = append(problems, "goProfiles: the job names no port (metricsPort, else port) serving /debug/pprof/")
	}
	return problems
}

// perfSuffix names the folder beside a job's where perf writes its file (the agent's, not the
// job's; a killed agent's is removed with its job folders).
const perfSuffix = ".perf"

// profileWindow is a job's profiled window: open, then closed with its results. A server kept
// across iterations gets one window an iteration, each opened once the one before is closed.
type profileWindow struct {
	session *profiler.Session
	closed  bool
	results []profiler.Result
}

func (a *Agent) handleProfilesStart(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	if !j.spec.Collect && !j.spec.GoProfiles {
		return nil, conflict("job %s asks for no profile (collect, goProfiles)", j.id)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.state != api.StateRunning || j.handle == nil {
		return nil, conflict("job %s is %s: a profiled window opens on a running job", j.id, j.state)
	}
	if j.window != nil && !j.window.closed {
		return nil, conflict("job %s: a profiled window is already open", j.id)
	}
	o := profiler.Options{Log: j.log, Dir: filepath.Join(a.opts.Dir, j.id+perfSuffix)}
	if j.spec.Collect {
		args, _ := profiler.ParseCollectArguments(j.spec.CollectArguments) // checked at submission
		o.Perf = &args
		pr, ok := j.handle.(runtime.Profiled)
		if !ok {
			return nil, conflict("job %s: its runtime cannot name its processes for perf", j.id)
		}
		if o.Pids, err = pr.Pids(); err != nil {
			return nil, fmt.Errorf("job %s: its processes: %w", j.id, err)
		}
	}
	if j.spec.GoProfiles {
		o.GoURL = "http://127.0.0.1:" + strconv.Itoa(cmpOr(j.spec.MetricsPort, j.spec.Port)) + "/debug/pprof/"
	}
	s, err := profiler.Start(o)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.id, err)
	}
	j.window = &profileWindow{session: s}
	return map[string]string{"profiles": "recording"}, nil
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func (a *Agent) handleProfilesStop(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	j.mu.Lock()
	w := j.window
	j.mu.Unlock()
	if w == nil {
		return nil, conflict("job %s: no profiled window was opened", j.id)
	}
	res := w.session.Stop(r.Context())
	j.mu.Lock()
	w.results, w.closed = res, true
	j.mu.Unlock()
	list := make([]api.Profile, 0, len(res))
	for _, p := range res {
		e := api.Profile{Name: p.Name, Bytes: len(p.Data)}
		if p.Err != nil {
			e.Error = p.Err.Error()
		}
		list = append(list, e)
	}
	return list, nil
}

func (a *Agent) handleProfile(r *http.Request) (any, error) {
	j, err := a.lookup(r)
	if err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.window != nil {
		for _, p := range j.window.results {
			if p.Name == name && p.Data != nil {
				return p.Data, nil
			}
		}
	}
	return nil, notFound("job %s: no profile %q (POST /jobs/%s/profiles/stop lists them)", j.id, name, j.id)
}

// endProfiles closes a window left open when the job ends: perf stopped and reaped, its file
// removed; nothing is read.
func (j *job) endProfiles() {
	j.mu.Lock()
	w := j.window
	j.mu.Unlock()
	if w != nil {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		w.session.Stop(ctx)
	}
}
