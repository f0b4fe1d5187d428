package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// capacityJSON is the "capacity" of a result file, read as plain JSON (not through the capacity
// package), so that the page is checked against the file rather than against its own code.
type capacityJSON struct {
	Capacity struct {
		Rate        float64  `json:"rate"`
		FailedAt    float64  `json:"failedAt"`
		FailedSLO   []string `json:"failedSlo"`
		VerdictKind string   `json:"verdictKind"`
		Verdict     string   `json:"verdict"`
		Steps       []map[string]any
	} `json:"capacity"`
}

// TestReportCapacity: a result file written by a real crank capacity search (testdata/capacity.json:
// the plaintext app, built-in generator, p99 < 20 ms, on this machine) gets its answer, every step
// and p99 and server CPU against the rate; each cell is the file's figure with the catalog's unit
// and rounding, and the same text as crank capacity's terminal table.
func TestReportCapacity(t *testing.T) {
	const path = "testdata/capacity.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc capacityJSON
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Capacity
	page, stdout, _ := writePage(t, path)
	if !strings.Contains(stdout, "(1 run(s), 1 capacity search(es), 2 chart(s))") {
		t.Errorf("stdout %q, want the search and its two charts counted", stdout)
	}
	root := parsePage(t, page)
	answer := find(root, "table", func(n *html.Node) bool { return hasClass(n, "capacity-answer") })
	steps := find(root, "table", func(n *html.Node) bool { return hasClass(n, "capacity-steps") })
	if len(answer) != 1 || len(steps) != 1 {
		t.Fatalf("%d answer tables and %d step tables, want one each", len(answer), len(steps))
	}
	rate, unit := figureOf(t, cells(rowWhere(t, answer[0], "data-key", "capacity"))[1])
	failed, _ := figureOf(t, cells(rowWhere(t, answer[0], "data-key", "failedAt"))[1])
	if rate != c.Rate || failed != c.FailedAt || unit != measure.UnitRPS {
		t.Errorf("capacity %v %s, failed at %v; want the file's %v and %v req/s", rate, unit, failed, c.Rate, c.FailedAt)
	}
	knee := cells(rowWhere(t, answer[0], "data-key", "verdict"))[1]
	failedRow := cells(rowWhere(t, answer[0], "data-key", "failedAt"))[1]
	if c.VerdictKind == "" || !strings.HasPrefix(knee, c.VerdictKind) || !strings.Contains(failedRow, c.FailedSLO[0]) {
		t.Errorf("knee %q, failed %q; want the file's %q and %q", knee, failedRow, c.VerdictKind, c.FailedSLO)
	}

	// The step table, against the file's figures and the terminal table's text.
	var res struct {
		Capacity capacity.Result `json:"capacity"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	var term bytes.Buffer
	capacity.WriteTable(&term, res.Capacity)
	termLines := strings.Split(term.String(), "\n")
	header := cells(find(steps[0], "tr", func(*html.Node) bool { return true })[0])
	wantHeader := []string{"step", "asked req/s", "done req/s", "p50 ms", "p90 ms", "p99 ms", "errors %", "server CPU %", "contention ms/s", "exceptions/s", ""}
	if strings.Join(header, "|") != strings.Join(wantHeader, "|") || strings.Join(strings.Fields(termLines[0]), " ") != strings.Join(wantHeader, " ")[:len(strings.Join(wantHeader, " "))-1] {
		t.Errorf("headings %q, terminal %q; want %q", header, termLines[0], wantHeader)
	}
	fields := []struct{ key, name string }{{"asked", measure.LoadAskedRate}, {"achieved", measure.RPS}, {"latency50", measure.Latency50},
		{"latency90", measure.Latency90}, {"latency99", measure.Latency99}, {"errorRate", measure.ErrorRate}, {"serverCpu", measure.CPU},
		{"lockContention", measure.LockContention}, {"exceptions", measure.ExceptionCount}}
	if len(c.Steps) < 4 {
		t.Fatalf("%d steps in the file, want a search with passes and failures", len(c.Steps))
	}
	var passes, fails int
	for i, s := range c.Steps {
		row := cells(rowWhere(t, steps[0], "data-step", strconv.Itoa(i+1)))
		for j, f := range fields {
			v, _ := s[f.key].(float64) // absent: 0 (omitempty)
			shown, err := strconv.ParseFloat(strings.ReplaceAll(row[j+1], ",", ""), 64)
			if err != nil || !near(t, f.name, shown, v) {
				t.Errorf("step %d %s: cell %q, want the file's %v rounded as the catalog's %s", i+1, f.key, row[j+1], v, f.name)
			}
		}
		if pass, _ := s["pass"].(bool); pass {
			passes++
		} else {
			fails++
		}
		if got, want := strings.Join(row, " "), strings.Join(strings.Fields(termLines[i+1]), " "); got != want {
			t.Errorf("step %d: report %q, terminal %q", i+1, got, want)
		}
	}
	if passes == 0 || fails == 0 {
		t.Errorf("%d passes, %d failures: the file should have both", passes, fails)
	}
	for _, title := range []string{"p99 ms against the rate asked", "server CPU % against the rate asked"} {
		if !strings.Contains(page, `data-title="`+title+`"`) {
			t.Errorf("no chart %q", title)
		}
	}
}

// TestReportCapacityMatrix: crank capacity --matrix's file gets each variant's search, named.
func TestReportCapacityMatrix(t *testing.T) {
	b, err := os.ReadFile("testdata/capacity.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	one := doc["capacity"]
	doc["capacity"] = json.RawMessage(`{"variants": [{"variant": "dispatch=shared", ` + string(one[1:]) + `, {"variant": "dispatch=partitioned", "rate": 0, "slos": [], "steps": []}]}`)
	doc["jobResults"] = json.RawMessage(`{"jobs": {}}`)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/matrix.json"
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	pg, err := build([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Capacity) != 2 || pg.Capacity[0].Label != "matrix.json: dispatch=shared" || len(pg.Capacity[0].Rows) == 0 ||
		pg.Capacity[1].Label != "matrix.json: dispatch=partitioned" || pg.Capacity[1].Rate != "" || len(pg.Capacity[1].Charts) != 0 {
		t.Errorf("views %+v, want both variants, the second with no capacity and no steps", pg.Capacity)
	}
}

// TestReportCapacityCannotTell: a search that cannot tell is shown as such, with its bracket, why
// and what would tell, not as a capacity.
func TestReportCapacityCannotTell(t *testing.T) {
	b, err := os.ReadFile("testdata/capacity.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(doc["capacity"], &c); err != nil {
		t.Fatal(err)
	}
	c["inconclusive"] = json.RawMessage(`"375 req/s failed only while the machine was disturbed (machine busy: 50 % of it used outside the run)"`)
	c["wouldTell"] = json.RawMessage(`"a quiet machine"`)
	if doc["capacity"], err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/busy.json"
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	page, _, _ := writePage(t, path)
	root := parsePage(t, page)
	answer := find(root, "table", func(n *html.Node) bool { return hasClass(n, "capacity-answer") })
	if len(answer) != 1 {
		t.Fatalf("%d answer tables", len(answer))
	}
	capCell := cells(rowWhere(t, answer[0], "data-key", "capacity"))[1]
	why := cells(rowWhere(t, answer[0], "data-key", "cannotTell"))[1]
	if !strings.HasPrefix(capCell, "cannot tell capacity between ") || !strings.Contains(why, "failed only while the machine was disturbed") ||
		!strings.Contains(why, "what would tell: a quiet machine") {
		t.Errorf("capacity %q, cannot tell %q", capCell, why)
	}
}
