package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/crankshaft/crankshaft/internal/app/apptest"
	"github.com/crankshaft/crankshaft/internal/app/metrics"
	"github.com/crankshaft/crankshaft/internal/app/pgtest"
)

var update = flag.Bool("update", false, "rewrite testdata/fortunes.golden.html")

func golden(t testing.TB, body []byte) {
	t.Helper()
	path := filepath.Join("testdata", "fortunes.golden.html")
	if *update {
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != string(want) {
		t.Fatalf("body differs from %s:\n got %s\nwant %s", path, body, want)
	}
}

func TestFortunes(t *testing.T) {
	pg := pgtest.Start(t, "shared_preload_libraries=pg_stat_statements")
	schema, err := os.ReadFile("schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	url := pg.CreateDatabase(t, "hello_world", string(schema)+"\nCREATE EXTENSION pg_stat_statements;")
	bin := apptest.Build(t, "github.com/crankshaft/crankshaft/apps/fortunes")
	endpoint := apptest.Endpoint{
		Path:        "/fortunes",
		ContentType: regexp.MustCompile(`^text/html; charset=utf-8$`),
		CheckBody:   checkBody,
	}
	for _, mode := range []string{"inline", "partitioned"} {
		t.Run(mode, func(t *testing.T) {
			p := apptest.Start(t, bin, "--database", url, "--dispatch", mode)
			apptest.CheckHTTP(t, p.Addr, endpoint)
			apptest.CheckMetrics(t, p.MetricsAddr, 25)
			checkOneQueryPerRequest(t, p, url)
		})
	}
	t.Run("database down", func(t *testing.T) {
		p := apptest.Start(t, bin, "--database", pg.URL("no_such_db"))
		if r := apptest.Get(t, p.Addr, "/fortunes"); r.Status != 500 {
			t.Fatalf("status %d, want 500", r.Status)
		}
		mfs := apptest.Scrape(t, p.MetricsAddr)
		if n, _ := apptest.Value(mfs, metrics.ExceptionsTotal, map[string]string{"kind": metrics.KindDB}); n != 1 {
			t.Fatalf("db exceptions = %v, want 1", n)
		}
	})
}

func checkBody(t testing.TB, body []byte) {
	t.Helper()
	golden(t, body)
	s := string(body)
	for _, want := range []string{
		"<tr><td>11</td><td>&lt;script&gt;alert(&#34;This should not be displayed in a browser alert box.&#34;);&lt;/script&gt;</td></tr>",
		"<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>",
		"<tr><td>0</td><td>Additional fortune added at request time.</td></tr>",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("body lacks %q", want)
		}
	}
	if strings.Count(s, "<tr>") != 14 {
		t.Fatalf("%d rows, want a header and 13 fortunes", strings.Count(s, "<tr>"))
	}
}

// checkOneQueryPerRequest sends 10 requests and checks both the app's query counter and
// PostgreSQL's own count of executions of the fortunes query (pg_stat_statements, updated as
// each statement ends) grew by exactly 10.
func checkOneQueryPerRequest(t *testing.T, p *apptest.Process, url string) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	calls := func() int64 {
		var n int64
		err := conn.QueryRow(ctx, "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements WHERE query = $1", fortunesQuery).Scan(&n)
		if err != nil {
			t.Fatalf("pg_stat_statements: %v", err)
		}
		return n
	}
	queries := func() float64 {
		v, _ := apptest.Value(apptest.Scrape(t, p.MetricsAddr), metrics.DBQueriesTotal, nil)
		return v
	}
	calls0 := calls()
	queries0 := queries()
	c := apptest.Dial(t, p.Addr)
	c.Send(strings.Repeat("GET /fortunes HTTP/1.1\r\nHost: t\r\n\r\n", 10))
	for range 10 {
		if r := c.Read("GET"); r.Status != 200 {
			t.Fatalf("status %d", r.Status)
		}
	}
	if d := queries() - queries0; d != 10 {
		t.Errorf("%s grew by %v for 10 requests, want 10", metrics.DBQueriesTotal, d)
	}
	if d := calls() - calls0; d != 10 {
		t.Errorf("pg_stat_statements calls of %q grew by %d for 10 requests, want 10", fortunesQuery, d)
	}
}
