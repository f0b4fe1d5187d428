package main

import (
	"regexp"
	"testing"

	"github.com/crankshaft/crankshaft/internal/app/apptest"
	"github.com/crankshaft/crankshaft/internal/app/metrics"
)

var endpoint = apptest.Endpoint{
	Path:        "/plaintext",
	ContentType: regexp.MustCompile(`^text/plain`),
	CheckBody:   apptest.ExactBody("Hello, World!"),
}

func TestPlaintext(t *testing.T) {
	bin := apptest.Build(t, "github.com/crankshaft/crankshaft/apps/plaintext")
	for _, mode := range []string{"inline", "shared", "partitioned"} {
		t.Run(mode, func(t *testing.T) {
			p := apptest.Start(t, bin, "--dispatch", mode)
			apptest.CheckHTTP(t, p.Addr, endpoint)
			apptest.CheckHTTP(t, p.Addr, apptest.Endpoint{Path: "/", ContentType: endpoint.ContentType, CheckBody: endpoint.CheckBody})
			checkMetrics(t, p.MetricsAddr)
		})
	}
}

func checkMetrics(t *testing.T, addr string) {
	mfs := apptest.Scrape(t, addr)
	for _, name := range []string{metrics.MutexWaitSeconds, metrics.SchedLatencies, metrics.QueueLength,
		metrics.RequestsTotal, metrics.ExceptionsTotal} {
		if _, ok := mfs[name]; !ok {
			t.Errorf("metric %s missing", name)
		}
	}
	if n, _ := apptest.Value(mfs, metrics.RequestsTotal, nil); n < 30 {
		t.Errorf("%s = %v, want >= 30 after the checks", metrics.RequestsTotal, n)
	}
	if n, _ := apptest.Value(mfs, metrics.ExceptionsTotal, map[string]string{"kind": "bad_request"}); n < 4 {
		t.Errorf("bad_request exceptions = %v, want >= 4", n)
	}
	if n, ok := apptest.Value(mfs, metrics.ExceptionsTotal, map[string]string{"kind": "panic"}); !ok || n != 0 {
		t.Errorf("panic exceptions = %v (present %v), want 0", n, ok)
	}
}
