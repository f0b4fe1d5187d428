package agent

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/counters"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// metricsURL is where the job's Prometheus metrics are, or "" when it has none.
func (j *job) metricsURL() string {
	switch {
	case j.spec.MetricsURL != "":
		return j.spec.MetricsURL
	case j.spec.MetricsPort != 0:
		return fmt.Sprintf("http://127.0.0.1:%d/metrics", j.spec.MetricsPort)
	}
	return ""
}

// scrapeLoop reads the job's counters every interval while p runs: its own, or the default
// counters when it names none (crank's config already merges the defaults into a job's own). A
// failed scrape is logged and skipped: the next one may work (the endpoint may come up after the
// job's ready text).
func (a *Agent) scrapeLoop(ctx context.Context, j *job, p handle, runStart time.Time) {
	url := j.metricsURL()
	if url == "" {
		return
	}
	specs := j.spec.Counters
	if len(specs) == 0 {
		specs = measure.DefaultCounters()
	}
	interval := a.interval(j)
	s, err := counters.New(url, specs, &http.Client{Timeout: min(interval, 5*time.Second)})
	if err != nil {
		j.log.Warn("counters not read", "err", err)
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	failures := 0
	for {
		if err := a.scrapeOnce(ctx, j, s, runStart); err != nil {
			if failures++; failures == 1 {
				j.log.Warn("metrics scrape failed", "url", url, "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-p.Wait():
			return
		case <-t.C:
		}
	}
}

func (a *Agent) scrapeOnce(ctx context.Context, j *job, s *counters.Scraper, runStart time.Time) error {
	values, err := s.Scrape(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	warm := now.Sub(runStart) < j.spec.Warmup.Std()
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		j.record(api.Measurement{Name: n, Timestamp: now, Value: values[n], Warmup: warm})
	}
	return nil
}
