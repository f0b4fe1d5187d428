package report

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// The page as a reader's tools see it: its HTML parsed, its tables read cell by cell.

func parsePage(t *testing.T, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("the page is not HTML: %v", err)
	}
	return doc
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")
}

// find returns the elements named tag (any when "") for which ok holds, in document order.
func find(n *html.Node, tag string, ok func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (tag == "" || n.Data == tag) && ok(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// text is an element's text, its white space collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.Data == "br" {
			b.WriteString(" ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// cells are a row's th and td texts.
func cells(tr *html.Node) []string {
	var out []string
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
			out = append(out, text(c))
		}
	}
	return out
}

// rowWhere is the table's row whose attribute key is val.
func rowWhere(t *testing.T, table *html.Node, key, val string) *html.Node {
	t.Helper()
	rows := find(table, "tr", func(n *html.Node) bool { return attr(n, key) == val })
	if len(rows) != 1 {
		t.Fatalf("%d rows with %s=%q, want 1", len(rows), key, val)
	}
	return rows[0]
}

// figureOf reads "995,581 req/s" (the figure first in a cell) as its number and unit.
func figureOf(t *testing.T, cell string) (float64, string) {
	t.Helper()
	f := strings.Fields(cell)
	if len(f) < 2 {
		t.Fatalf("cell %q: not a number and a unit", cell)
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(f[0], ",", ""), 64)
	if err != nil {
		t.Fatalf("cell %q: %v", cell, err)
	}
	return v, f[1]
}

// near tells whether shown is v rounded to the catalog format's decimals of name.
func near(t *testing.T, name string, shown, v float64) bool {
	t.Helper()
	md, ok := measure.Default().Lookup(name)
	if !ok {
		t.Fatalf("%s is not in the catalog", name)
	}
	decimals, err := strconv.Atoi(strings.TrimPrefix(md.Format, "n"))
	if err != nil {
		t.Fatalf("%s: format %q", name, md.Format)
	}
	return math.Abs(shown-v) <= 0.5*math.Pow(10, -float64(decimals))+1e-9
}

func unitOf(t *testing.T, name string) string {
	t.Helper()
	md, ok := measure.Default().Lookup(name)
	if !ok {
		t.Fatalf("%s is not in the catalog", name)
	}
	return md.Unit
}

// rawRun is a result file read with encoding/json alone: what the page must agree with.
type rawRun struct {
	JobResults struct {
		Jobs map[string]struct {
			Results      map[string]float64 `json:"results"`
			Environment  map[string]any     `json:"environment"`
			Measurements [][]struct {
				Name     string  `json:"name"`
				Value    float64 `json:"value"`
				Warmup   bool    `json:"warmup"`
				Cooldown bool    `json:"cooldown"`
			} `json:"measurements"`
		} `json:"jobs"`
		Diagnostics []struct {
			Kind string `json:"kind"`
		} `json:"diagnostics"`
	} `json:"jobResults"`
}

func readRaw(t *testing.T, path string) rawRun {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r rawRun
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// samples are a job's samples of name over its timelines; measured leaves the warm-up and the
// cool-down out.
func (r rawRun) samples(job, name string, measured bool) []float64 {
	var out []float64
	for _, tl := range r.JobResults.Jobs[job].Measurements {
		for _, m := range tl {
			if m.Name == name && !(measured && (m.Warmup || m.Cooldown)) {
				out = append(out, m.Value)
			}
		}
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
