package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// layout is what a reader sees of a page at one window width.
type layout struct {
	ScrollWidth int `json:"scrollWidth"`
	InnerWidth  int `json:"innerWidth"`
	// Overflowing counts the tables wider than their box (a horizontal scrollbar).
	Overflowing int         `json:"overflowing"`
	Figures     []figLayout `json:"figures"`
}

type figLayout struct {
	Title     string  `json:"title"`
	Shown     int     `json:"shown"` // drawings displayed (wide or narrow: one)
	Width     float64 `json:"width"`
	Bottom    float64 `json:"bottom"`
	LegendTop float64 `json:"legendTop"`
}

const pageLayout = `(() => {
  const shown = f => [...f.querySelectorAll('svg.plot')].filter(s => s.getBoundingClientRect().width > 0);
  return {
    scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
    overflowing: [...document.querySelectorAll('.scroll')].filter(e => e.scrollWidth > e.clientWidth + 1).length,
    figures: [...document.querySelectorAll('figure.chart')].map(f => {
      const s = shown(f), r = s.length ? s[0].getBoundingClientRect() : {width: 0, bottom: 0};
      const l = f.querySelector('ul.legend');
      return {title: f.dataset.title, shown: s.length, width: r.width, bottom: r.bottom,
        legendTop: l ? l.getBoundingClientRect().top : 0};
    }),
  };
})()`

// TestReportLayoutInChromium: the report of two runs (wrk) and of one built-in generator run, as
// a reader's window shows them: at 1,400 px every chart is at least 1,200 px wide with its legend
// below the drawing; at 800 px the page has no horizontal scrollbar, no table overflows and the
// charts fill the width; and the page prints to PDF.
func TestReportLayoutInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		testutil.Missing(t, "chromium is not installed (make test-deps)")
	}
	dir := t.TempDir()
	pages := map[string][]string{
		"two.html": {"internal/report/testdata/before.json", "internal/report/testdata/after.json"},
		"one.html": {"internal/report/testdata/builtin.json"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	for name, files := range pages {
		out := filepath.Join(dir, name)
		if r := crank(t, time.Minute, append(append([]string{"report"}, files...), "-o", out)...); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", name, r.code, r.stdout, r.stderr)
		}
		wantCharts := map[string]int{"two.html": 3, "one.html": 5}[name]
		for _, width := range []int64{1400, 800} {
			if err := chromedp.Do(bctx, chromedp.EmulateViewport(width, 1000), chromedp.Navigate("file://"+out), chromedp.WaitReady("body")); err != nil {
				t.Fatal(err)
			}
			l, err := chromedp.Run(bctx, chromedp.Evaluate[layout](pageLayout))
			if err != nil {
				t.Fatal(err)
			}
			if l.InnerWidth != int(width) || l.ScrollWidth > l.InnerWidth || l.Overflowing != 0 {
				t.Errorf("%s at %d px: window %d px, page %d px wide, %d tables overflowing; want no horizontal scrolling",
					name, width, l.InnerWidth, l.ScrollWidth, l.Overflowing)
			}
			if len(l.Figures) != wantCharts {
				t.Errorf("%s at %d px: %d charts, want %d", name, width, len(l.Figures), wantCharts)
			}
			minWidth := map[int64]float64{1400: 1200, 800: 700}[width]
			for _, f := range l.Figures {
				if f.Shown != 1 || f.Width < minWidth || f.LegendTop < f.Bottom {
					t.Errorf("%s at %d px: chart %q: %d drawings shown, %.0f px wide (want one, >= %.0f), legend at %.0f, drawing ends at %.0f (want it below)",
						name, width, f.Title, f.Shown, f.Width, minWidth, f.LegendTop, f.Bottom)
				}
			}
		}
		pdf, err := chromedp.Run(bctx, chromedp.PrintToPDF(chromedp.PDFPaper(chromedp.PaperA4)))
		if err != nil {
			t.Fatalf("%s: printing: %v", name, err)
		}
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) || len(pdf) < 10_000 {
			t.Errorf("%s: printed %d bytes starting %q, want a PDF", name, len(pdf), pdf[:min(8, len(pdf))])
		}
	}
}
