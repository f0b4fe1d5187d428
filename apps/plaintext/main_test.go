package main

import (
	"regexp"
	"testing"

	"github.com/crankshaft/crankshaft/internal/app/apptest"
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
			root := endpoint
			root.Path = "/"
			root.CheckOK(t, apptest.Get(t, p.Addr, "/"))
			apptest.CheckMetrics(t, p.MetricsAddr, 30)
		})
	}
}
