package agent

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/counters"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
)

// metricsURL is where the job's Prometheus metrics are, or "" when it has no counters to read.
func (j *job) metricsURL() string {
	switch {
	case len(j.spec.Counters) == 0:
		return ""
	case j.spec.MetricsURL != "":
		return j.spec.MetricsURL
	case j.spec.MetricsPort != 0:
		return fmt.Sprintf("http://127.0.0.1:%d/metrics", j.spec.MetricsPort)
	}
	return ""
}

// scrapeLoop reads the job's counters every interval while p runs. A failed scrape is logged and
// skipped: the next one may work (the endpoint may come up after the job's ready text).
func (a *Agent) scrapeLoop(ctx context.Context, j *job, p *proc.Process, runStart time.Time) {
	url := j.metricsURL()
	if url == "" {
		return
	}
	interval := a.interval(j)
	s, err := counters.New(url, j.spec.Counters, &http.Client{Timeout: min(interval, 5*time.Second)})
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
