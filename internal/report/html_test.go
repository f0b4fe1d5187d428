package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

// TestReportTablesAgreeWithTheResults reads the page of two wrk runs as HTML: the summary's RPS,
// p99 and CPU, and the comparison's values, are the result files' (in the catalog's units and
// precision); the comparison's verdicts colour their rows; the all-zero exceptions are one line;
// and the latency timeline wrk cannot give is said to be not available, naming wrk.
func TestReportTablesAgreeWithTheResults(t *testing.T) {
	files := []string{"testdata/before.json", "testdata/after.json"}
	page, _, _ := writePage(t, files...)
	doc := parsePage(t, page)
	raws := []rawRun{readRaw(t, files[0]), readRaw(t, files[1])}

	summaries := find(doc, "table", func(n *html.Node) bool { return hasClass(n, "summary") })
	if len(summaries) != 1 {
		t.Fatalf("%d summary tables, want 1", len(summaries))
	}
	sum := summaries[0]
	if got := cells(find(sum, "tr", func(*html.Node) bool { return true })[0]); strings.Join(got, "|") != "|before.json|after.json" {
		t.Errorf("summary header %q", got)
	}
	for key, check := range map[string]func(run int, cell string){
		"rps": func(run int, cell string) {
			v, unit := figureOf(t, cell)
			want := raws[run].JobResults.Jobs["load"].Results[measure.RPS]
			if !near(t, measure.RPS, v, want) || unit != unitOf(t, measure.RPS) {
				t.Errorf("run %d: requests/s %q, want %v %s", run, cell, want, unitOf(t, measure.RPS))
			}
		},
		"p99": func(run int, cell string) {
			v, unit := figureOf(t, cell)
			want := raws[run].JobResults.Jobs["load"].Results[measure.Latency99]
			if !near(t, measure.Latency99, v, want) || unit != unitOf(t, measure.Latency99) {
				t.Errorf("run %d: p99 %q, want %v %s", run, cell, want, unitOf(t, measure.Latency99))
			}
		},
		"cpu": func(run int, cell string) {
			v, unit := figureOf(t, cell)
			samples := raws[run].samples("application", measure.CPU, true)
			want := mean(samples) // the diagnosis's CPU: the mean of the measured samples
			if len(samples) < 2 || !near(t, measure.CPU, v, want) || unit != unitOf(t, measure.CPU) ||
				!strings.Contains(cell, "of the machine") || !strings.Contains(cell, "of 2 cores)") {
				t.Errorf("run %d: CPU %q, want the mean of %d samples %v %s of the machine, of 2 cores", run, cell, len(samples), want, unitOf(t, measure.CPU))
			}
		},
		"verdict": func(run int, cell string) {
			if want := raws[run].JobResults.Diagnostics[0].Kind; !strings.HasPrefix(cell, want+" ") {
				t.Errorf("run %d: verdict %q, want %s first", run, cell, want)
			}
		},
		"machine": func(run int, cell string) {
			env := raws[run].JobResults.Jobs["application"].Environment
			for _, want := range []string{"2 cores", env["os"].(string) + "/" + env["arch"].(string), env["cpuModel"].(string)} {
				if !strings.Contains(cell, want) {
					t.Errorf("run %d: machine %q lacks %q", run, cell, want)
				}
			}
		},
	} {
		row := cells(rowWhere(t, sum, "data-key", key))
		if len(row) != 3 {
			t.Fatalf("summary row %s: %q", key, row)
		}
		check(0, row[1])
		check(1, row[2])
	}
	if rps := cells(rowWhere(t, sum, "data-key", "rps"))[2]; !strings.HasSuffix(rps, "-22.58% inconclusive") {
		t.Errorf("after.json's requests/s %q: its change and verdict are not beside it", rps)
	}

	loads := find(doc, "table", func(n *html.Node) bool { return hasClass(n, "comparison") && attr(n, "data-service") == "load" })
	if len(loads) != 1 {
		t.Fatalf("%d comparison tables of load, want 1", len(loads))
	}
	if h := cells(find(loads[0], "tr", func(*html.Node) bool { return true })[0]); strings.Join(h, "|") != "metric|unit|before|after|change|verdict|p|95% CI of ratio" {
		t.Errorf("comparison header %q", h)
	}
	for _, c := range []struct {
		metric, verdict, class string
	}{
		// One run a side: no interval, so -22.58 % RPS and +53.93 % p99 cannot tell either; the error
		// rate's rule (under 0.1 point) holds without iterations.
		{measure.RPS, "inconclusive", "inconclusive"},
		{measure.Latency99, "inconclusive", "inconclusive"},
		{measure.CPU, "inconclusive", "inconclusive"},
		{measure.ErrorRate, "unchanged", ""},
	} {
		tr := rowWhere(t, loads[0], "data-metric", c.metric)
		row := cells(tr)
		if len(row) != 8 {
			t.Fatalf("%s: %q", c.metric, row)
		}
		if row[1] != unitOf(t, c.metric) || row[5] != c.verdict || attr(tr, "class") != c.class || row[6] != "-" {
			t.Errorf("%s: %q class %q, want unit %s, verdict %s, class %q, no p (one iteration a side)",
				c.metric, row, attr(tr, "class"), unitOf(t, c.metric), c.verdict, c.class)
		}
		if c.metric == measure.ErrorRate {
			continue // derived: not in the files
		}
		base, _ := strconv.ParseFloat(strings.ReplaceAll(row[2], ",", ""), 64)
		head, _ := strconv.ParseFloat(strings.ReplaceAll(row[3], ",", ""), 64)
		wb, wh := raws[0].JobResults.Jobs["load"].Results[c.metric], raws[1].JobResults.Jobs["load"].Results[c.metric]
		change, _ := strconv.ParseFloat(strings.TrimSuffix(row[4], "%"), 64)
		if !near(t, c.metric, base, wb) || !near(t, c.metric, head, wh) || math.Abs(change-100*(wh/wb-1)) > 0.005 {
			t.Errorf("%s: %q, want %v -> %v (%+.2f%%)", c.metric, row, wb, wh, 100*(wh/wb-1))
		}
	}

	for _, run := range raws { // the premise: every exceptions sample is 0
		if s := run.samples("application", measure.ExceptionCount, false); len(s) < 2 || slices.Max(s) != 0 || slices.Min(s) != 0 {
			t.Fatalf("testdata exceptions samples %v: not all 0", s)
		}
	}
	if n := len(find(doc, "figure", func(n *html.Node) bool { return attr(n, "data-title") == "Exceptions" })); n != 0 {
		t.Errorf("%d Exceptions charts of zeros, want none", n)
	}
	said := find(doc, "p", func(n *html.Node) bool { return hasClass(n, "collapsed") })
	var lines []string
	for _, p := range said {
		lines = append(lines, attr(p, "data-title")+" = "+text(p))
	}
	want := []string{
		"Latency p99 = Latency over time: not available: before.json: load (wrk) reports latency once, for the whole run; " +
			"after.json: load (wrk) reports latency once, for the whole run; the built-in generator (--load.job builtin) reports it every second.",
		"Exceptions = Exceptions: 0 throughout (14 samples of 2 lines).",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines instead of charts:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if n := len(find(doc, "figure", func(n *html.Node) bool { return strings.HasPrefix(attr(n, "data-title"), "Latency") })); n != 0 {
		t.Errorf("%d latency charts of wrk runs, want none", n)
	}
	if n := len(find(doc, "pre", func(*html.Node) bool { return true })); n != 0 {
		t.Errorf("%d <pre> text dumps, want tables only", n)
	}
}

// TestReportLatencyOverTime: a run of the built-in generator has latency over time: a p99 and a
// p50 chart, each with the load's line of as many samples as the file has per second.
func TestReportLatencyOverTime(t *testing.T) {
	const file = "testdata/builtin.json"
	page, _, stderr := writePage(t, file)
	doc := parsePage(t, page)
	raw := readRaw(t, file)
	for title, name := range map[string]string{"Latency p99": measure.BuiltinLatency99PerSecond, "Latency p50": measure.BuiltinLatency50PerSecond} {
		n := len(raw.samples("load", name, false))
		figs := find(doc, "figure", func(f *html.Node) bool { return attr(f, "data-title") == title })
		if n < 2 || len(figs) != 1 {
			t.Fatalf("%s: %d charts, %d samples of %s in the file; want 1 chart of at least 2", title, len(figs), n, name)
		}
		legend := find(figs[0], "li", func(*html.Node) bool { return true })
		if len(legend) != 1 || text(legend[0]) != "builtin.json: load ("+strconv.Itoa(n)+" samples)" {
			t.Errorf("%s: legend %d lines, want builtin.json: load (%d samples)", title, len(legend), n)
		}
		if svgs := find(figs[0], "svg", func(s *html.Node) bool { return hasClass(s, "plot") }); len(svgs) != 2 {
			t.Errorf("%s: %d drawings, want 2 (wide and narrow)", title, len(svgs))
		}
	}
	if strings.Contains(stderr, "not available") || strings.Contains(page, "not available") {
		t.Errorf("latency over time said missing for the built-in generator: %q", stderr)
	}
}

// TestReportSweepTables: a sweep's page has each metric as an HTML table of every variant, its
// mean the mean of the variant's iterations in the file, the significant change coloured with its
// p-value; the all-zero metric (exceptions) is said in a line.
func TestReportSweepTables(t *testing.T) {
	path := sweepFile(t, []string{"dispatch=shared,partitioned"}, func(v sweep.Cell) float64 {
		return map[string]float64{"shared": 1e6, "partitioned": 2e6}[v.Value("dispatch")]
	})
	var raw struct {
		Variants []struct {
			Name   string `json:"name"`
			Result struct {
				JobResults struct {
					Jobs map[string]struct {
						Iterations []map[string]float64 `json:"iterations"`
					} `json:"jobs"`
				} `json:"jobResults"`
			} `json:"result"`
		} `json:"variants"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	page, _, _ := writePage(t, path)
	doc := parsePage(t, page)
	rps := find(doc, "table", func(n *html.Node) bool { return hasClass(n, "sweep") && attr(n, "data-metric") == measure.RPS })
	if len(rps) != 1 {
		t.Fatalf("%d RPS tables, want 1", len(rps))
	}
	trs := find(rps[0], "tr", func(*html.Node) bool { return true })
	if len(trs) != 1+len(raw.Variants) || len(raw.Variants) != 2 {
		t.Fatalf("%d rows for %d variants", len(trs)-1, len(raw.Variants))
	}
	for i, v := range raw.Variants {
		row := cells(trs[1+i])
		var its []float64
		for _, it := range v.Result.JobResults.Jobs["load"].Iterations {
			its = append(its, it[measure.RPS])
		}
		shown, err := strconv.ParseFloat(strings.ReplaceAll(row[1], ",", ""), 64)
		if len(row) != 7 || row[0] != v.Name || err != nil || !near(t, measure.RPS, shown, mean(its)) || row[3] != strconv.Itoa(len(its)) {
			t.Errorf("variant %s: %q, want its mean over %d iterations %v", v.Name, row, len(its), mean(its))
		}
	}
	head, means := cells(trs[2]), [2]float64{}
	for i := range means {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(cells(trs[1+i])[1], ",", ""), 64)
		means[i] = v
	}
	p, err := strconv.ParseFloat(head[6], 64)
	if ratio := fmt.Sprintf("%.2fx", means[1]/means[0]); head[4] != ratio || head[5] != "improved *" ||
		attr(trs[2], "class") != "improved" || err != nil || p >= 0.05 {
		t.Errorf("partitioned against shared: %q class %q, want %s, improved * with p < 0.05, coloured", head, attr(trs[2], "class"), ratio)
	}
	if attr(trs[1], "class") != "" || cells(trs[1])[5] != "baseline" {
		t.Errorf("the baseline's row: %q class %q", cells(trs[1]), attr(trs[1], "class"))
	}
	if n := len(find(doc, "pre", func(*html.Node) bool { return true })); n != 0 {
		t.Errorf("%d <pre> text dumps, want tables only", n)
	}
}
