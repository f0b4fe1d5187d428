package agent

import (
	"context"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// sampleLoop samples p's process tree every interval until p exits or the job is stopped. Samples
// are marked Warmup during a warm-up run and during the job's `warmup` span after runStart.
func (a *Agent) sampleLoop(ctx context.Context, j *job, p runtime.Handle, warmup bool, runStart time.Time) {
	interval := a.interval(j)
	if _, err := p.Stats(); err != nil { // starts the counting
		j.log.Debug("no sampling", "what", p.String(), "err", err)
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.Wait():
			return
		case <-t.C:
		}
		st, err := p.Stats()
		if err != nil {
			return // the process is gone
		}
		select {
		case <-p.Wait():
			// Reaped while sampling: the agent may already have started the next run (the measured
			// one after a warm-up), and this sample would carry this run's mark past that start.
			// A sample kept here was taken before the reaping, so before anything that follows it.
			return
		default:
		}
		w := warmup || st.Time.Sub(runStart) < j.spec.Warmup.Std()
		m := func(name string, v float64) api.Measurement {
			return api.Measurement{Name: name, Timestamp: st.Time, Value: v, Warmup: w}
		}
		ms := []api.Measurement{
			m(measure.CPU, st.CPU),
			m(measure.CPURaw, st.CPURaw),
			m(measure.CPUGlobal, st.CPUGlobal),
			m(measure.CPUSteal, st.CPUSteal),
			m(measure.WorkingSet, st.WorkingSetMB),
			m(measure.PrivateMemory, st.PrivateMB),
		}
		if st.HasThreads { // unknown is left out, not 0
			ms = append(ms, m(measure.CPUThread, st.BusiestThread))
		}
		j.record(ms...)
	}
}
