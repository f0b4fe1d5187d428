package agent

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/counters"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// metricsURL is where the job's Prometheus metrics are, or "" when it has none: metricsUrl, or
// metricsPort on the address the job listens on there (the loopback address for a wildcard
// listener, or while nothing listens yet), so an app bound to the machine's lab address is read.
func (j *job) metricsURL() string {
	switch {
	case j.spec.MetricsURL != "":
		return j.spec.MetricsURL
	case j.spec.MetricsPort != 0:
		host, ok := listenHost(j.spec.MetricsPort)
		if !ok {
			host = "127.0.0.1"
		}
		return "http://" + net.JoinHostPort(host, strconv.Itoa(j.spec.MetricsPort)) + "/metrics"
	}
	return ""
}

// scrapeWarnAfter is how many failed scrapes in a row, with none read yet, make a job warning.
const scrapeWarnAfter = 3

// scrapeLoop reads the job's counters every interval while p runs: its own, or the default
// counters when it names none (crank's config already merges the defaults into a job's own). A
// failed scrape is skipped: the next one may work (the endpoint may come up after the job's ready
// text). Metrics that cannot be read at all become a job warning, which crank prints.
func (a *Agent) scrapeLoop(ctx context.Context, j *job, p runtime.Handle, runStart time.Time) {
	url := j.metricsURL()
	if url == "" {
		return
	}
	specs := j.spec.Counters
	if len(specs) == 0 {
		specs = measure.DefaultCounters()
	}
	interval := a.interval(j)
	client := &http.Client{Timeout: min(interval, 5*time.Second)}
	t := time.NewTicker(interval)
	defer t.Stop()
	s, err := counters.New(url, specs, client)
	if err != nil {
		j.warn(fmt.Sprintf("runtime counters not read: %v", err))
		return
	}
	failures, read := 0, false
	var lastErr error
	for {
		err := a.scrapeOnce(ctx, j, s, runStart)
		switch {
		case err == nil:
			read, failures = true, 0
		case ctx.Err() == nil:
			lastErr = err
			if failures++; failures == 1 {
				j.log.Warn("metrics scrape failed", "url", url, "err", err)
			}
			if failures == scrapeWarnAfter && !read {
				j.warn(fmt.Sprintf("runtime counters not read from %s: %v", url, err))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-p.Wait():
			if !read && lastErr != nil {
				j.warn(fmt.Sprintf("runtime counters not read from %s: %v", url, lastErr))
			}
			return
		case <-t.C:
		}
		if u := j.retarget(url, read); u != url { // the listener came up meanwhile
			url = u
			s, _ = counters.New(url, specs, client) // the specs were accepted above
		}
	}
}

// retarget is the URL of the next scrape, after one at url: where the job listens now while its
// metrics have not been read (the listener may have come up meanwhile, on another address), and
// url once they have been, as where it listens is settled then. Looking reads /proc/net/tcp and
// tcp6, milliseconds each however few sockets there are (the kernel walks its whole socket hash
// table): looked up every tick, it was most of the agent's CPU while it scraped a job.
func (j *job) retarget(url string, read bool) string {
	if read {
		return url
	}
	return j.metricsURL()
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
