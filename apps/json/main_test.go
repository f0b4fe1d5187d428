package main

import (
	"regexp"
	"testing"

	"github.com/crankshaft/crankshaft/internal/app/apptest"
)

var endpoint = apptest.Endpoint{
	Path:        "/json",
	ContentType: regexp.MustCompile(`^application/json`),
	CheckBody:   apptest.ExactBody(`{"message":"Hello, World!"}`),
}

func TestJSON(t *testing.T) {
	bin := apptest.Build(t, "github.com/crankshaft/crankshaft/apps/json")
	for _, mode := range []string{"inline", "partitioned"} {
		t.Run(mode, func(t *testing.T) {
			p := apptest.Start(t, bin, "--dispatch", mode)
			apptest.CheckHTTP(t, p.Addr, endpoint)
			apptest.CheckMetrics(t, p.MetricsAddr, 30)
		})
	}
}
