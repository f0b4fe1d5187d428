// Package counters scrapes a job's Prometheus endpoint and turns the metrics its `counters` name
// into measurements: a counter's rate per second, a gauge's value, or a quantile of a summary or
// of a histogram (over the observations made since the previous scrape).
//
// A metric is a name, optionally with label matchers (`app_exceptions_total{kind="panic"}`); the
// values of every series that matches are added up. Only the lines of the families the specs read
// are parsed.
package counters

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/crankshaft/crankshaft/internal/api"
)

// The ways a counter spec reads its metric.
const (
	ReadRate     = "rate"
	ReadGauge    = "gauge"
	ReadQuantile = "quantile"
)

// Scraper reads one endpoint for one job. It is not safe for concurrent use.
type Scraper struct {
	url      string
	specs    []spec
	families families // whose lines are parsed
	client   *http.Client
	prevAt   time.Time
	prev     []reading // per spec, from the previous scrape
	now      func() time.Time
	body     *bufio.Reader // reused by every scrape, as is kept
	kept     kept
}

type spec struct {
	api.CounterSpec
	name   string
	labels map[string]string
}

// reading is what one scrape saw for one spec: a sum, or cumulative histogram buckets; at is
// the latest timestamp the exporter put on the samples read (zero when it put none).
type reading struct {
	ok      bool
	sum     float64
	buckets []bucket
	at      time.Time
}

type bucket struct{ le, count float64 }

// New checks the specs and returns a scraper of url. client may be nil.
func New(url string, specs []api.CounterSpec, client *http.Client) (*Scraper, error) {
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	s := &Scraper{url: url, client: client, now: time.Now, body: bufio.NewReader(nil)}
	for _, c := range specs {
		sp, err := parseSpec(c)
		if err != nil {
			return nil, err
		}
		s.specs = append(s.specs, sp)
	}
	s.families = familiesOf(s.specs)
	return s, nil
}

func parseSpec(c api.CounterSpec) (spec, error) {
	sp := spec{CounterSpec: c, labels: map[string]string{}}
	if sp.Scale == 0 {
		sp.Scale = 1
	}
	if sp.Measurement == "" {
		sp.Measurement = c.Metric
	}
	switch c.Read {
	case ReadRate, ReadGauge, ReadQuantile:
	default:
		return sp, fmt.Errorf("counter %q: read %q: want rate, gauge or quantile", c.Metric, c.Read)
	}
	name, sel, hasSel := strings.Cut(c.Metric, "{")
	sp.name = strings.TrimSpace(name)
	if sp.name == "" {
		return sp, fmt.Errorf("counter %q: no metric name", c.Metric)
	}
	if hasSel {
		body, ok := strings.CutSuffix(strings.TrimSpace(sel), "}")
		if !ok {
			return sp, fmt.Errorf("counter %q: unclosed {", c.Metric)
		}
		for m := range strings.SplitSeq(body, ",") {
			k, v, ok := strings.Cut(m, "=")
			if strings.TrimSpace(m) == "" {
				continue
			}
			if !ok {
				return sp, fmt.Errorf("counter %q: label matcher %q: want name=\"value\"", c.Metric, m)
			}
			sp.labels[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return sp, nil
}

// Scrape reads the endpoint and returns the value of each spec's measurement. Rates and histogram
// quantiles need two scrapes: the first one only primes them.
func (s *Scraper) Scrape(ctx context.Context) (map[string]float64, error) {
	families, now, err := s.fetch(ctx)
	if err != nil {
		return nil, err
	}
	return s.observe(families, now), nil
}

// observe turns one scrape's metric families, read at now, into the specs' measurements.
func (s *Scraper) observe(families map[string]*dto.MetricFamily, now time.Time) map[string]float64 {
	cur := make([]reading, len(s.specs))
	out := map[string]float64{}
	for i, sp := range s.specs {
		cur[i] = read(families[sp.name], sp)
		var prev reading
		if s.prev != nil {
			prev = s.prev[i]
		}
		if v, ok := value(sp, prev, cur[i], now.Sub(s.prevAt)); ok {
			out[sp.Measurement] += v * sp.Scale
		}
	}
	s.prev, s.prevAt = cur, now
	return out
}

// fetch reads and parses the endpoint. at is when the values were read: the middle of the
// request's round trip (the app gathers them between request and response), not the end of the
// parse, which a busy machine delays by a varying amount and so skews every rate.
func (s *Scraper) fetch(ctx context.Context) (fams map[string]*dto.MetricFamily, at time.Time, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, at, fmt.Errorf("metrics %s: %w", s.url, err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	// Not compressed (net/http asks for gzip unless told): the endpoint is the job's own, on this
	// machine or its lab network, and gzip cost both the job and the agent more CPU than reading
	// 55 kB of text (a Go app's); Prometheus's enable_compression: false sends the same.
	req.Header.Set("Accept-Encoding", "identity")
	sent := s.now()
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, at, fmt.Errorf("metrics %s: %w", s.url, err)
	}
	at = sent.Add(s.now().Sub(sent) / 2)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, at, fmt.Errorf("metrics %s: status %d", s.url, resp.StatusCode)
	}
	body := io.Reader(resp.Body)
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") { // sent though not asked for
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, at, fmt.Errorf("metrics %s: gzip: %w", s.url, err)
		}
		defer zr.Close()
		body = zr // parse bounds what is read after decompression
	}
	fams, err = s.parse(body)
	if err != nil {
		return nil, at, fmt.Errorf("metrics %s: %w", s.url, err)
	}
	return fams, at, nil
}

// maxExposition bounds what one scrape reads.
const maxExposition = 16 << 20

// parse reads an exposition and parses the lines of the specs' families (see families.keeps).
func (s *Scraper) parse(r io.Reader) (map[string]*dto.MetricFamily, error) {
	s.body.Reset(io.LimitReader(r, maxExposition))
	err := s.families.filter(&s.kept, s.body)
	s.body.Reset(nil) // not held past the scrape
	if err != nil {
		return nil, err
	}
	fams, err := parseText(bytes.NewReader(s.kept.text))
	return fams, s.kept.sentLine(err)
}

// parseText reads the Prometheus text exposition format. The parser of prometheus/common v0.66
// panics on some malformed input ("{}" after a comment: prometheus/common#922, found by
// FuzzExposition); an app's endpoint must not crash the agent, so a panic is its error.
func parseText(r io.Reader) (fams map[string]*dto.MetricFamily, err error) {
	defer func() {
		if v := recover(); v != nil {
			fams, err = nil, fmt.Errorf("malformed exposition (the parser failed: %v)", v)
		}
	}()
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}
