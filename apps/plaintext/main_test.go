package main

import (
	"regexp"
	"strings"
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
	// io_uring where the kernel allows it (else epoll): the rules hold on either I/O.
	for _, mode := range []string{"inline", "shared", "partitioned", "inline --io auto"} {
		t.Run(mode, func(t *testing.T) {
			p := apptest.Start(t, bin, append([]string{"--dispatch"}, strings.Fields(mode)...)...)
			apptest.CheckHTTP(t, p.Addr, endpoint)
			root := endpoint
			root.Path = "/"
			root.CheckOK(t, apptest.Get(t, p.Addr, "/"))
			apptest.CheckMetrics(t, p.MetricsAddr, 30)
		})
	}
}
