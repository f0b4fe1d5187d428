package main

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestNginxConfig(t *testing.T) {
	c := nginxConfig("/tmp/x", 38811)
	for _, want := range []string{
		"worker_processes 1;", "daemon off;", "pid /tmp/x/nginx.pid;", "access_log off;",
		"listen 127.0.0.1:38811;",
		`location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }`,
		`location = /json { default_type application/json; return 200 '{"message":"Hello, World!"}'; }`,
	} {
		if !strings.Contains(c, want) {
			t.Errorf("config lacks %q:\n%s", want, c)
		}
	}
}

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"--rounds", "4", "--only", "agent, overhead"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.runs != 3 || c.rounds != 4 || c.seconds != 3 || c.connections != 64 || c.pipeline != 16 || c.out != "docs/PERFORMANCE.md" ||
		c.json != "docs/PERFORMANCE.json" {
		t.Errorf("config = %+v", c)
	}
	for _, args := range [][]string{{"--out", "/tmp/r.md"}, {"--json", "/tmp/r.json"}} {
		if c, err := parseFlags(args, io.Discard); err != nil || c.json != "/tmp/r.json" {
			t.Errorf("parseFlags(%q): json %q, err %v; want /tmp/r.json", args, c.json, err)
		}
	}
	if !c.wants(sectionAgent) || !c.wants(sectionOverhead) || c.wants(sectionServers) {
		t.Errorf("sections = %q", c.sections)
	}
	var stderr bytes.Buffer
	if _, err := parseFlags([]string{"--only", "nope", "--pipeline", "1", "--out", "r.json"}, &stderr); err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{`unknown section "nope"`, "--pipeline >= 2", "--json r.json: the report (--out) is written there"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
}

func TestStampedLines(t *testing.T) {
	s := &stampedLines{start: time.Now()}
	for _, chunk := range []string{"[application] uploading /w (5 files) to U\n[appl", "ication] starting job \"p\" on U\nnoise\n",
		"[application] ready on U (251ms)\n[load] starting job \"builtin\" on U\n[load] done on U (1.2s)\n| table |\n"} {
		if n, err := s.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	var names []string
	for _, e := range s.events() {
		names = append(names, e.Name)
	}
	if got, want := strings.Join(names, ","), "upload,app start,app ready,load start,load done"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if tail := s.tail(); !strings.HasSuffix(tail, "| table |\n") {
		t.Errorf("tail = %q", tail)
	}
	cached := &stampedLines{start: time.Now()} // a source the agent took from its build cache is in place then
	line := "06:32:15 [application] source /w (5 files) taken from the build cache of U: not uploaded\n"
	if _, err := cached.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	if ev := cached.events(); len(ev) != 1 || ev[0].Name != "upload" {
		t.Errorf("events of a source taken from the cache: %+v, want one upload", ev)
	}
}

func TestProxyFirstByte(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		c, err := echo.Accept()
		if err == nil {
			_, _ = io.Copy(c, c)
			c.Close()
		}
	}()
	px, err := startProxy(echo.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	if !px.First().IsZero() {
		t.Fatal("first byte before any connection")
	}
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(px.Port())))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := time.Now()
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, 18)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "GET / HTTP/1.1\r\n\r\n" {
		t.Fatalf("echo through the proxy = %q, %v", got, err)
	}
	if f := px.First(); f.Before(before) || time.Since(f) > 5*time.Second {
		t.Errorf("first byte at %v, sent at %v", f, before)
	}
	if err := px.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func TestCPUModel(t *testing.T) {
	in := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t: fpu\n"
	if got := cpuModel(strings.NewReader(in)); got != "AMD EPYC 7B13" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := cpuModel(strings.NewReader("Hardware: BCM2835\n")); got != "unknown" {
		t.Errorf("cpuModel without a model name = %q", got)
	}
}
