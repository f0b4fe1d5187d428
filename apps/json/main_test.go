package main

import (
	"regexp"
	"strings"
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
	// io_uring where the kernel allows it (else epoll): the rules hold on either I/O.
	for _, mode := range []string{"inline", "partitioned", "inline --io auto"} {
		t.Run(mode, func(t *testing.T) {
			p := apptest.Start(t, bin, append([]string{"--dispatch"}, strings.Fields(mode)...)...)
			apptest.CheckHTTP(t, p.Addr, endpoint)
			apptest.CheckMetrics(t, p.MetricsAddr, 30)
		})
	}
}
