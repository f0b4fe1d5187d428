package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results/resultstest"
)

// bisectFile is testdata/bisect.json: a bisect.Result written as crank bisect --json writes it, with
// the figures of docs/BISECT.md's example (TestBisectFindsTheMutex: 16 commits, the 11th adds a
// mutex). A step's change is against the good end measured in its own rounds, not the baseline's
// mean: -1.8 % for change 8, whose mean is 1.7 % under the baseline's.
const bisectFile = "testdata/bisect.json"

// readBisect is the file's search, read as crank report reads a result file.
func readBisect(t *testing.T) bisect.Result {
	t.Helper()
	doc := resultstest.ReadResult(t, bisectFile)
	var r bisect.Result
	if err := json.Unmarshal(doc.Bisect, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReportBisect: a crank bisect file gets its figure, ends, answer and path, each row the cells
// crank bisect prints for the same step (the terminal's lines are written from the same file here),
// each figure the file's in the catalog's unit and rounding; and the means by commit drawn.
func TestReportBisect(t *testing.T) {
	r := readBisect(t)
	rps := unitOf(t, measure.RPS)
	// The rows as a reader reads them off the terminal, by hand from the file's figures.
	want := [][]string{
		{"good (baseline)", "d61dfe6d7b change 1", "69,938 " + rps, "± 21.6 %", "3", "", "", "", "", "", ""},
		{"bad (the other end)", "ac3ff2f8d3 change 16", "15,563 " + rps, "± 1.8 %", "3", "-77.7 %", "69,938 " + rps, "0.004", "", "bad", ""},
		{"step 1 of about 4", "d3ea8f5a1d change 8", "68,764 " + rps, "± 24.2 %", "3", "-1.8 %", "70,025 " + rps, "0.801", "at 0.06 ± 0.37 of the way from good to bad", "good", ""},
		{"step 2 of about 4", "4ee1d5be93 change 12", "15,651 " + rps, "± 2.4 %", "3", "-77.3 %", "68,948 " + rps, "0.002", "at 0.98 ± 0.11 of the way from good to bad", "bad", ""},
		{"step 3 of about 4", "9307276de2 change 10", "67,931 " + rps, "± 13.6 %", "3", "-3.0 %", "70,032 " + rps, "0.501", "at 0.03 ± 0.21 of the way from good to bad", "good", ""},
		{"step 4 of about 4", "65ab1d4ccf guard every request with a mutex", "15,591 " + rps, "± 1.9 %", "3", "-78.1 %", "71,190 " + rps, "0.000", "at 1.01 ± 0.08 of the way from good to bad", "bad", "contention-bound"},
	}
	var term bytes.Buffer
	bisect.WritePath(&term, r)
	wantTerm := "bisect of load:http/rps/mean from d61dfe6d7b (good) to ac3ff2f8d3 (bad):\n" +
		"  good (baseline): d61dfe6d7b change 1: 69,938 " + rps + " ± 21.6 % over 3 iterations\n" +
		"  bad (the other end): ac3ff2f8d3 change 16: 15,563 " + rps + " ± 1.8 % over 3 iterations, -77.7 % from good's 69,938 " + rps + " beside it (p 0.004): bad\n" +
		"  step 1 of about 4: d3ea8f5a1d change 8: 68,764 " + rps + " ± 24.2 % over 3 iterations, -1.8 % from good's 70,025 " + rps + " beside it (p 0.801), at 0.06 ± 0.37 of the way from good to bad: good\n" +
		"  step 2 of about 4: 4ee1d5be93 change 12: 15,651 " + rps + " ± 2.4 % over 3 iterations, -77.3 % from good's 68,948 " + rps + " beside it (p 0.002), at 0.98 ± 0.11 of the way from good to bad: bad\n" +
		"  step 3 of about 4: 9307276de2 change 10: 67,931 " + rps + " ± 13.6 % over 3 iterations, -3.0 % from good's 70,032 " + rps + " beside it (p 0.501), at 0.03 ± 0.21 of the way from good to bad: good\n" +
		"  step 4 of about 4: 65ab1d4ccf guard every request with a mutex: 15,591 " + rps + " ± 1.9 % over 3 iterations, -78.1 % from good's 71,190 " + rps + " beside it (p 0.000), at 1.01 ± 0.08 of the way from good to bad: bad (diagnosis: contention-bound)\n" +
		"first bad commit: 65ab1d4ccf0123456789abcdef0123456789abcd guard every request with a mutex\n"
	if term.String() != wantTerm {
		t.Errorf("terminal:\n%s\nwant:\n%s", term.String(), wantTerm)
	}

	page, stdout, stderr := writePage(t, bisectFile)
	if !strings.Contains(stdout, "(1 run(s), 1 bisect search(es), 1 chart(s))") || stderr != "" {
		t.Errorf("stdout %q, stderr %q: want the search and its chart counted, and no missing timeline said", stdout, stderr)
	}
	root := parsePage(t, page)
	answer := find(root, "table", func(n *html.Node) bool { return hasClass(n, "bisect-answer") })
	steps := find(root, "table", func(n *html.Node) bool { return hasClass(n, "bisect-steps") })
	if len(answer) != 1 || len(steps) != 1 {
		t.Fatalf("%d answer tables and %d step tables, want one each", len(answer), len(steps))
	}
	for key, w := range map[string]string{"metric": "load:http/rps/mean", "good": r.Good.SHA + " change 1", "bad": r.Bad.SHA + " change 16",
		"answer": "first bad commit: " + r.FirstBad + " guard every request with a mutex"} {
		if got := cells(rowWhere(t, answer[0], "data-key", key))[1]; got != w {
			t.Errorf("%s: %q, want %q", key, got, w)
		}
	}
	termLines := strings.Split(strings.TrimSpace(term.String()), "\n")[1:]
	path := append([]bisect.Step{r.Baseline, r.BadEnd}, r.Steps...)
	for i, w := range want {
		row := cells(rowWhere(t, steps[0], "data-row", strconv.Itoa(i)))
		if strings.Join(row, "|") != strings.Join(w, "|") {
			t.Errorf("row %d: %q, want %q", i, row, w)
			continue
		}
		for _, c := range row {
			if !strings.Contains(termLines[i], c) {
				t.Errorf("row %d: cell %q is not in the terminal's line %q", i, c, termLines[i])
			}
		}
		mean, unit := figureOf(t, row[2])
		if unit != rps || !near(t, measure.RPS, mean, path[i].Mean) {
			t.Errorf("row %d: mean %v %s, want the file's %v in %s", i, mean, unit, path[i].Mean, rps)
		}
	}
	// A step's diagnosis: its kind in the row, its message in the cell's title.
	diag := find(rowWhere(t, steps[0], "data-row", "5"), "td", func(n *html.Node) bool { return hasClass(n, "diagnosis") })
	if len(diag) != 1 || !strings.HasPrefix(attr(diag[0], "title"), "contention-bound: application's lock contention rose to 980 ms/s") {
		t.Errorf("step 4's diagnosis cell: %d, want one whose title is the diagnosis' message", len(diag))
	}
	firstBad := find(steps[0], "tr", func(n *html.Node) bool { return attr(n, "data-first-bad") == "true" })
	if len(firstBad) != 1 || !strings.Contains(text(firstBad[0]), "65ab1d4ccf") {
		t.Errorf("first bad row marked: %d rows, want the mutex's", len(firstBad))
	}
	if !strings.Contains(page, `data-title="load:http/rps/mean by commit"`) || strings.Contains(page, "Timelines") {
		t.Errorf("want the chart of the means by commit, and no timeline section for a file without a run")
	}
}

// TestReportBisectAnswers: the other answers as crank bisect writes them; a skipped commit's row
// and its absence from the chart; a search that stopped says why.
func TestReportBisectAnswers(t *testing.T) {
	base := readBisect(t)
	skip := bisect.Step{Commit: bisect.Commit{SHA: "5555555555aaaa", Subject: "break the build"}, Verdict: bisect.Skip, Note: "build failed", Position: 9}
	cases := []struct {
		name       string
		edit       func(*bisect.Result)
		answer     string
		candidates []string
	}{
		{"none worse", func(r *bisect.Result) { r.FirstBad, r.Steps, r.NoneWorse = "", nil, true },
			"no commit is worse: load:http/rps/mean at ac3ff2f8d3 is within the noise of d61dfe6d7b", nil},
		{"candidates", func(r *bisect.Result) {
			r.Steps = append(r.Steps[:2], skip, r.Steps[3])
			r.Candidates = []bisect.Commit{skip.Commit, r.Steps[3].Commit}
		}, "the first bad commit is one of (commits that did not build are in the way):",
			[]string{"5555555555 break the build", "65ab1d4ccf guard every request with a mutex"}},
		{"stopped", func(r *bisect.Result) {
			r.FirstBad, r.Steps = "", r.Steps[:1]
			r.Stopped = bisect.ErrCannotTell.Error() + ": 4ee1d5be93 (change 12) is -3.0 % from good"
		}, bisect.ErrCannotTell.Error() + ": 4ee1d5be93 (change 12) is -3.0 % from good", nil},
	}
	for _, c := range cases {
		r := base
		r.Steps = append([]bisect.Step(nil), base.Steps...)
		c.edit(&r)
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		v, err := bisectView("b.json", raw)
		if err != nil {
			t.Fatal(err)
		}
		if v.Answer != c.answer || strings.Join(v.Candidates, "|") != strings.Join(c.candidates, "|") || v.Stopped != (r.Stopped != "") {
			t.Errorf("%s: answer %q %q, want %q %q", c.name, v.Answer, v.Candidates, c.answer, c.candidates)
		}
		var term bytes.Buffer
		bisect.WritePath(&term, r)
		if got := strings.Contains(term.String(), c.answer); got == (r.Stopped != "") {
			t.Errorf("%s: terminal %q: want the answer printed (a stop's reason goes to standard error)", c.name, term.String())
		}
		if c.name != "candidates" {
			continue
		}
		row := v.Rows[4]
		if row.Head != "step 3 of about 4" || row.Verdict != bisect.Skip || row.Mean != "" ||
			!strings.Contains(term.String(), "step 3 of about 4: 5555555555 break the build: skip (build failed)") {
			t.Errorf("skipped row %+v, terminal %q", row, term.String())
		}
		if v.Chart == nil || strings.Join(v.Chart.Absent, "|") != "5555555555 did not build or run" {
			t.Errorf("chart %+v: want the skipped commit said absent", v.Chart)
		}
	}
}

// TestReportBisectWhatGrew: a search that recorded profiles shows what grew from the last good
// commit to the first bad, the lines crank bisect printed.
func TestReportBisectWhatGrew(t *testing.T) {
	doc := resultstest.ReadResult(t, bisectFile)
	r := readBisect(t)
	r.Grew = []bisect.Growth{{Service: "application", Profile: "perf-cpu", LastGood: r.Steps[2].Commit, FirstBad: r.Steps[3].Commit,
		LastGoodRuns: 3, FirstBadRuns: 3, Functions: []bisect.Grown{{Function: "main.spinUnderLock", Where: "main.spinUnderLock", Head: 72e3}}}}
	grew, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	doc.Bisect = grew
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "bisect.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	page, _, _ := writePage(t, file)
	want := `<tr data-key="grew"><th scope="row">What grew</th><td class="grew">what grew from the last good commit 9307276de2 to the first bad 65ab1d4ccf, in application&#39;s perf-cpu profile (CPU a request over 3 and 3 runs, by time in the function itself):<br>    &#43;72.00 µs a request in main.spinUnderLock (0.00 -&gt; 72.00 µs)</td></tr>`
	if !strings.Contains(page, want) {
		t.Errorf("the page lacks %s", want)
	}
}

// TestReportBisectNoneCounted: a commit none of whose rounds was counted (each still under steal
// once run again) has no figure: the chart leaves it out and says why, instead of drawing a 0.
func TestReportBisectNoneCounted(t *testing.T) {
	r := readBisect(t)
	r.Steps = append([]bisect.Step(nil), r.Steps...)
	s := &r.Steps[2]
	s.Mean, s.HalfWidth, s.Iterations, s.Dropped, s.Verdict = 0, 0, 0, 4, bisect.CannotTell
	c, err := bisectChart(r)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil || strings.Join(c.Absent, "|") != s.Commit.Short()+": no round counted (4 under steal once run again)" {
		t.Fatalf("chart %+v: want the commit with no round counted said absent", c)
	}
	if strings.Contains(string(c.SVG), ">"+s.Commit.Short()+"<") {
		t.Errorf("the commit with no figure is drawn")
	}
}
