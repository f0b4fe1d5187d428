package main

import (
	"slices"
	"strings"
	"testing"
)

const wrkOutput = `Running 2s test @ http://127.0.0.1:38811/plaintext
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.73ms    2.11ms  15.27ms   59.91%
    Req/Sec   160.94k     5.76k  167.47k    70.00%
  319456 requests in 2.00s, 49.05MB read
Requests/sec: 159532.73
Transfer/sec:     24.49MB
`

const crankLoadOutput = `Running 1s load @ http://127.0.0.1:38811/plaintext (warm-up 0s)
  4 connections, 2 threads, pipeline 2, rate unlimited
  Latency (ms)  mean 0.05  p50 0.04  p75 0.06  p90 0.09  p99 0.16  max 6.87
  122872 requests in 1.00s, 19.78 MB read
  Status: 2xx 122872
Requests/sec: 122857.31
`

func TestParseRequestsIn(t *testing.T) {
	for name, c := range map[string]struct {
		out  string
		want int64
	}{"wrk": {wrkOutput, 319456}, "crank load": {crankLoadOutput, 122872}} {
		n, err := parseRequestsIn([]byte(c.out))
		if err != nil || n != c.want {
			t.Errorf("%s: %d, %v; want %d", name, n, err, c.want)
		}
	}
	bad := strings.Replace(wrkOutput, "Requests/sec", "  Non-2xx or 3xx responses: 56251\nRequests/sec", 1)
	if n, err := parseRequestsIn([]byte(bad)); err == nil || n != 319456 || !strings.Contains(err.Error(), "56251") {
		t.Errorf("non-2xx: %d, %v; want the count and an error naming 56251", n, err)
	}
	if _, err := parseRequestsIn([]byte("unable to connect to 127.0.0.1:1 Connection refused")); err == nil {
		t.Error("no count: want an error")
	}
}

func TestParseBombardier(t *testing.T) {
	out := `{"spec":{"numberOfConnections":8},"result":{"bytesRead":7977780,"timeTakenSeconds":1.0002,"req1xx":0,"req2xx":69372,"req3xx":0,"req4xx":0,"req5xx":0,"others":3}}`
	if n, err := parseBombardier([]byte(out)); err != nil || n != 69372 {
		t.Errorf("got %d, %v; want 69372", n, err)
	}
	bad := strings.Replace(out, `"req5xx":0`, `"req5xx":12`, 1)
	if n, err := parseBombardier([]byte(bad)); err == nil || n != 69384 {
		t.Errorf("5xx: %d, %v; want 69384 and an error", n, err)
	}
	for _, s := range []string{"", "Error: connection refused", `{"spec":{}}`} {
		if _, err := parseBombardier([]byte(s)); err == nil {
			t.Errorf("parseBombardier(%q): want an error", s)
		}
	}
}

func TestClientArgs(t *testing.T) {
	w := wrkClient("/usr/bin/wrk", "/x/pipeline.lua")
	got, ok := w.Args("http://h/p", 16, 3, 64)
	want := []string{"/usr/bin/wrk", "-c", "64", "-t", "1", "-d", "3s", "-s", "/x/pipeline.lua", "http://h/p", "--", "16"}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("wrk pipelined = %q", got)
	}
	if got, _ := w.Args("http://h/p", 1, 3, 64); !slices.Equal(got, []string{"/usr/bin/wrk", "-c", "64", "-t", "1", "-d", "3s", "http://h/p"}) {
		t.Errorf("wrk unpipelined = %q", got)
	}
	c := crankLoadClient("crank")
	if got, _ := c.Args("http://h/p", 16, 3, 64); !slices.Equal(got, []string{"crank", "load", "http://h/p", "-c", "64", "-t", "1", "-p", "16", "-d", "3"}) {
		t.Errorf("crank load = %q", got)
	}
	b := bombardierClient("bombardier")
	if _, ok := b.Args("http://h/p", 16, 3, 64); ok {
		t.Error("bombardier pipelined: want not ok")
	}
	if got, ok := b.Args("http://h/p", 1, 3, 64); !ok || !slices.Contains(got, "json") || got[len(got)-1] != "http://h/p" {
		t.Errorf("bombardier = %q, %v", got, ok)
	}
	if modeName(16) != "pipelined 16" || modeName(1) != "unpipelined" {
		t.Errorf("modeName: %q, %q", modeName(16), modeName(1))
	}
}
