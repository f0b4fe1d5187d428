package counters

import (
	"bufio"
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// goApp is testdata/goapp.prom: the plaintext app's /metrics (client_golang's Go collector with
// every runtime metric: 150 families, 55 kB), read by the default counters.
func goApp(tb testing.TB) (text []byte, s *Scraper) {
	tb.Helper()
	text, err := os.ReadFile("testdata/goapp.prom")
	if err != nil {
		tb.Fatal(err)
	}
	s, err = New("http://127.0.0.1:1/metrics", measure.DefaultCounters(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return text, s
}

// The families a scrape parses are exactly those its specs read, each as the whole exposition's
// parse has it.
func TestOnlyTheSpecsFamiliesParsed(t *testing.T) {
	text, s := goApp(t)
	all, err := parseText(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.parse(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"app_dispatch_queue_length", "app_exceptions_total", "app_requests_total",
		"go_gc_duration_seconds", "go_gc_pauses_seconds", "go_goroutines", "go_sched_latencies_seconds",
		"go_sync_mutex_wait_total_seconds_total", "go_threads"}
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, want) {
		t.Errorf("parsed families %q, want %q (of %d)", names, want, len(all))
	}
	sameFamilies(t, s, all, got)
}

// sameFamilies fails when a family some spec of s reads differs between two parses.
func sameFamilies(t *testing.T, s *Scraper, want, got map[string]*dto.MetricFamily) {
	t.Helper()
	for _, sp := range s.specs {
		if w, g := want[sp.name], got[sp.name]; !proto.Equal(w, g) {
			t.Errorf("family %s: parsed %v, want %v", sp.name, g, w)
		}
	}
}

// A scrape of the Go app parses 50 of its 540 lines: about 700 allocations (5,400 when it parsed
// them all). A generous bound, so that parsing everything again cannot pass unseen.
func TestGoAppScrapeAllocations(t *testing.T) {
	text, s := goApp(t)
	r := bytes.NewReader(text)
	n := testing.AllocsPerRun(20, func() {
		r.Reset(text)
		fams, err := s.parse(r)
		if err != nil {
			t.Fatal(err)
		}
		s.observe(fams, time.Now())
	})
	if n > 1500 {
		t.Errorf("%.0f allocations a scrape of the Go app, want at most 1500", n)
	}
}

// BenchmarkGoAppScrape is the agent's work on one scrape of the Go app but the round trip:
// filter, parse, compute the default counters.
func BenchmarkGoAppScrape(b *testing.B) {
	text, s := goApp(b)
	r := bytes.NewReader(text)
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(text)
		fams, err := s.parse(r)
		if err != nil {
			b.Fatal(err)
		}
		s.observe(fams, time.Now())
	}
}

func TestKeeps(t *testing.T) {
	f := familiesOf([]spec{{name: "rpc_seconds"}, {name: "up"}, {name: "h_count_sum"}})
	for line, want := range map[string]bool{
		"up 1\n":                                true,
		"  up{job=\"x\"} 1 123\n":               true,
		"up\t1\n":                               true,
		"rpc_seconds_bucket{le=\"1\"} 3\n":      true,
		"rpc_seconds_count 3\n":                 true,
		"# TYPE rpc_seconds histogram\n":        true,
		"#\tHELP up Whether it is up.\n":        true,
		"h_count 1\n":                           true, // the parser may file it under h (h_count_sum's)
		"# TYPE h summary\n":                    true,
		"upper 1\n":                             false,
		"other_seconds_bucket{le=\"1\"} 3\n":    false,
		"# HELP other Another.\n":               false,
		"# TYPE other counter\n":                false,
		"# a comment about up\n":                false,
		"\n":                                    false,
		"   \n":                                 false,
		"{\"my.metric\",x=\"y\"} 1\n":           true, // a quoted name: the parser reads it
		"# TYPE \"my.metric\" counter\n":        true,
		"other.metric 1\n":                      true, // malformed: the parser says so
		"9lives 1\n":                            true,
		"other\n":                               true,
		"<html><body>Not Found</body></html>\n": true,
	} {
		if got := f.keeps([]byte(line)); got != want {
			t.Errorf("keeps(%q) = %v, want %v", line, got, want)
		}
	}
}

// A line longer than the reader's buffer is kept or dropped whole, by its start.
func TestLongLinesFilteredWhole(t *testing.T) {
	f := familiesOf([]spec{{name: "up"}})
	long := strings.Repeat("x", 10000)
	text := "other{l=\"" + long + "\"} 1\nup{l=\"" + long + "\"} 1\nother 2\nup 2"
	var k kept
	if err := f.filter(&k, bufio.NewReaderSize(strings.NewReader(text), 16)); err != nil {
		t.Fatal(err)
	}
	if want := "up{l=\"" + long + "\"} 1\nup 2"; string(k.text) != want {
		t.Errorf("filtered %d bytes, want the two up lines (%d bytes), the last without its missing newline", len(k.text), len(want))
	}
	if want := []int{2, 4}; !slices.Equal(k.lines, want) {
		t.Errorf("kept lines %v, want %v", k.lines, want)
	}
}

// A scrape that parses only some families still fails on what the endpoint sends when it is no
// exposition, or a malformed line of a family read.
func TestMalformedStillFails(t *testing.T) {
	s, err := New("http://127.0.0.1:1/metrics", []api.CounterSpec{{Metric: "up", Read: ReadGauge}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		"<html><body>Not Found</body></html>\n":   "line 1:",
		"# TYPE other counter\nother 1\nup one\n": "line 3:", // the line sent, not the line parsed
		"up 1": "line 1: unexpected end of input stream",
	} {
		if _, err := s.parse(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q parsed with error %v, want one saying %q", text, err, want)
		}
	}
}
