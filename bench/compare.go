package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/uring"
)

// comparison is one table of the report: subjects measured in alternating rounds against a
// reference, on one side of the exchange.
type comparison struct {
	Title, Side, About string
	Rows               []row
	Samples            []sample
	Commands           []string
	Notes              []string
	NginxConf          string // the configuration nginx ran with, when it did
	// Results are the rows' figures, summarized once from the samples (summarized).
	Results []rowResult
}

// summarized is the comparison with its rows' figures computed from its samples: the report's
// goals, its tables and the JSON result all read these.
func summarized(c comparison) comparison {
	c.Results = summarize(c.Rows, c.Samples, c.Side)
	return c
}

// The subjects.
const (
	nginxPlaintext = "nginx plaintext"
	nginxJSON      = "nginx json"
	appPlaintext   = "plaintext app"
	appPlainEpoll  = "plaintext app epoll" // --io epoll: the default's fallback, beside io_uring
	appJSON        = "json app"
	genWrk         = "wrk"
	genCrank       = "crank load"       // its default, --io auto: io_uring where the kernel allows it
	genCrankEpoll  = "crank load epoll" // --io epoll: the default's fallback, beside io_uring
	genBombardier  = "bombardier"
)

// compare starts the servers once and runs the comparisons asked for.
func (e *env) compare(ctx context.Context) []comparison {
	srv, notes := e.startServers(ctx)
	defer func() {
		for _, s := range srv {
			e.procs.stop(s.p, 3*time.Second)
		}
	}()
	conf := ""
	if s := srv["nginx"]; s != nil {
		conf = strings.ReplaceAll(nginxConfig(filepath.Join(e.tmp, "nginx"), s.port), e.tmp, "$TMP")
	}
	var out []comparison
	if e.cfg.wants(sectionServers) {
		c := e.serversComparison(ctx, srv)
		c.Notes = append(notes, c.Notes...)
		out = append(out, c)
	}
	if e.cfg.wants(sectionGenerators) {
		out = append(out, e.generatorsComparison(ctx, srv))
	}
	if len(out) > 0 {
		out[0].NginxConf = conf
	}
	return out
}

// startServers starts nginx and the two apps, pinned to the server CPU, and checks one answer of
// each. A server that cannot start is missing, and the rows that need it say why.
func (e *env) startServers(ctx context.Context) (map[string]*server, []string) {
	srv := map[string]*server{}
	var notes []string
	start := func(name string, f func() (*server, error), paths map[string]string) {
		s, err := f()
		if err != nil {
			e.log.Warn("server did not start", "server", name, "err", err)
			e.tools.missing[name] = fmt.Sprintf("%s did not start: %v", name, err)
			return
		}
		srv[name] = s
		for path, want := range paths {
			a, err := probe(s.Addr, path)
			if err == nil && (a.Status != 200 || a.Body != want) {
				err = fmt.Errorf("GET %s answered %d %q, want 200 %q", path, a.Status, a.Body, want)
			}
			if err != nil {
				e.tools.missing[name] = fmt.Sprintf("%s answers wrongly: %v", name, err)
				delete(srv, name)
				e.procs.stop(s.p, 3*time.Second)
				return
			}
			notes = append(notes, fmt.Sprintf("%s `GET %s`: %d %s, %d-byte body, %d bytes with the head.",
				name, path, a.Status, a.ContentType, len(a.Body), a.Bytes))
		}
	}
	plain, js := map[string]string{"/plaintext": "Hello, World!"}, map[string]string{"/json": `{"message":"Hello, World!"}`}
	if e.tools.nginx != "" {
		both := map[string]string{"/plaintext": plain["/plaintext"], "/json": js["/json"]}
		start("nginx", func() (*server, error) { return startNginx(ctx, e, e.tools.nginx) }, both)
	}
	start(appPlaintext, func() (*server, error) { return startApp(ctx, e, appPlaintext, e.tools.plaintext) }, plain)
	start(appJSON, func() (*server, error) { return startApp(ctx, e, appJSON, e.tools.json) }, js)
	if err := uring.Probe(); err != nil { // the defaults are epoll already
		e.tools.missing[appPlainEpoll] = "n/a: the plaintext app's default is epoll here (" + err.Error() + ")"
		e.tools.missing[genCrankEpoll] = "n/a: crank load's default is epoll here (" + err.Error() + ")"
	} else {
		start(appPlainEpoll, func() (*server, error) {
			return startApp(ctx, e, appPlainEpoll, e.tools.plaintext, "--io", "epoll")
		}, plain)
	}
	return srv, notes
}

// serversComparison: the apps against nginx, server CPU per request, all under the same wrk.
func (e *env) serversComparison(ctx context.Context, srv map[string]*server) comparison {
	c := comparison{Title: "The apps against nginx", Side: sideServer,
		About: "Server CPU per request, every server under the same client (wrk, one thread, pinned to CPU 1)."}
	// The targets, by pipelined: issue 47's 0.85x for the plaintext app unpipelined.
	subjects := []struct {
		name, server, path, missingKey string
		target                         map[bool]float64
	}{
		{nginxPlaintext, "nginx", "/plaintext", "nginx", nil},
		{appPlaintext, appPlaintext, "/plaintext", appPlaintext, map[bool]float64{true: 1, false: 0.85}},
		{appPlainEpoll, appPlainEpoll, "/plaintext", appPlainEpoll, nil},
		{appJSON, appJSON, "/json", appJSON, map[bool]float64{true: 1.3, false: 1.3}},
		{nginxJSON, "nginx", "/json", "nginx", nil},
	}
	var trials []trial
	for _, p := range []int{e.cfg.pipeline, 1} {
		for _, sub := range subjects {
			r := row{Subject: sub.name, Mode: modeName(p), Reference: nginxPlaintext, Target: sub.target[p > 1]}
			r.Skipped = e.firstMissing("wrk", sub.missingKey) // no nginx: the apps run, without a ratio
			c.Rows = append(c.Rows, r)
			if r.Skipped == "" {
				t := trial{Subject: sub.name, Pipeline: p, Server: srv[sub.server], Path: sub.path,
					Client: wrkClient(e.tools.wrk, e.tools.lua)}
				trials = append(trials, t)
				c.Commands = append(c.Commands, e.show(e.argv(t, e.cfg.seconds)))
			}
		}
	}
	var starts []string
	for _, name := range []string{"nginx", appPlaintext, appJSON, appPlainEpoll} {
		if s := srv[name]; s != nil {
			starts = append(starts, s.Command)
		}
	}
	c.Commands = append(starts, c.Commands...)
	c.Samples = e.runRounds(ctx, "servers", c.Side, trials, c.Rows)
	return c
}

// generatorsComparison: crank load against wrk and bombardier, client CPU per request, all
// against nginx.
func (e *env) generatorsComparison(ctx context.Context, srv map[string]*server) comparison {
	c := comparison{Title: "crank load against wrk and bombardier", Side: sideClient,
		About: "Client CPU per request, every generator against the same server (nginx, /plaintext, pinned to CPU 0). " +
			"Unpipelined, the generators share the kernel's socket work and differ in their system calls (wrk about 4 a request, " +
			"crank load on io_uring under 1), so their ratio moves with the price of a system call (the machine table)."}
	gens := []struct {
		name   string
		client client
		target map[bool]float64 // by pipelined: issue 47's 0.25x and 0.70x
	}{
		{genWrk, wrkClient(e.tools.wrk, e.tools.lua), nil},
		{genCrank, crankLoadClient(e.tools.crank), map[bool]float64{true: 0.25, false: 0.70}},
		{genCrankEpoll, crankLoadClient(e.tools.crank, "--io", "epoll"), nil},
		{genBombardier, bombardierClient(e.tools.bombardier), nil},
	}
	var trials []trial
	for _, p := range []int{e.cfg.pipeline, 1} {
		for _, g := range gens {
			r := row{Subject: g.name, Mode: modeName(p), Reference: genWrk, Target: g.target[p > 1]}
			r.Skipped = e.firstMissing("nginx", g.name) // no wrk: the others run, without a ratio
			t := trial{Subject: g.name, Pipeline: p, Server: srv["nginx"], Path: "/plaintext", Client: g.client}
			if _, ok := g.client.Args("http://x/", p, 1, 1); !ok && r.Skipped == "" {
				r.Skipped = "n/a: " + g.name + " cannot pipeline"
			}
			c.Rows = append(c.Rows, r)
			if r.Skipped == "" {
				trials = append(trials, t)
				c.Commands = append(c.Commands, e.show(e.argv(t, e.cfg.seconds)))
			}
		}
	}
	if s := srv["nginx"]; s != nil {
		c.Commands = append([]string{s.Command}, c.Commands...)
	}
	c.Samples = e.runRounds(ctx, "generators", c.Side, trials, c.Rows)
	return c
}

// firstMissing is the reason the first missing tool or server of names gives, or "".
func (e *env) firstMissing(names ...string) string {
	for _, n := range names {
		if why, ok := e.tools.missing[n]; ok {
			return "skipped: " + why
		}
	}
	return ""
}
