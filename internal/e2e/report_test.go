package e2e

import (
	"bytes"
	"context"
	"image/color"
	"image/png"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"gonum.org/v1/plot/plotutil"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// pathInfo is one SVG path of a chart: its style and how many points it joins.
type pathInfo struct {
	Style  string `json:"style"`
	Points int    `json:"points"`
}

const chartPaths = `(() => {
  const out = {};
  for (const f of document.querySelectorAll('figure.chart')) {
    out[f.dataset.title] = [...f.querySelectorAll('svg path')].map(p => ({
      style: (p.getAttribute('style') || '').toLowerCase(),
      points: (p.getAttribute('d').match(/[ML]/g) || []).length }));
  }
  return out;
})()`

// TestReportInChromium: `crank report before.json after.json -o r.html` (two real plaintext runs:
// inline dispatch, then a shared queue under 64 workers) opens in headless Chromium with no
// console error and no request beyond the file itself; each run's requests/s and CPU lines hold as many points as its file has
// samples; a screenshot of the requests/s chart shows both runs' colours.
func TestReportInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		testutil.Missing(t, "chromium is not installed (make test-deps)")
	}
	dir := t.TempDir()
	files := []string{"internal/report/testdata/before.json", "internal/report/testdata/after.json"}
	html := filepath.Join(dir, "r.html")
	if r := crank(t, time.Minute, "report", files[0], files[1], "-o", html); r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1200, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	var mu sync.Mutex
	var problems []string
	err = chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, "console "+string(e.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *network.EventRequestWillBeSent: // the page alone: nothing fetched from anywhere
			if !strings.HasPrefix(e.Request.URL, "file://") {
				problems = append(problems, "request: "+e.Request.URL)
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Chromium enables the runtime and log domains on attach: console calls, exceptions and
	// failed loads all reach the listener.
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+html), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	paths, err := chromedp.Run(bctx, chromedp.Evaluate[map[string][]pathInfo](chartPaths))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(bctx, chromedp.Screenshot(`figure.chart[data-title="Requests per second"]`, chromedp.NodeVisible))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(problems) > 0 {
		t.Errorf("console: %v", problems)
	}
	mu.Unlock()

	for run, file := range files {
		res, err := results.ReadFile(filepath.Join(testEnv.root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ chart, service, name string }{
			{"Requests per second", "application", "runtime-counter/requests-per-second"},
			{"CPU", "application", "benchmarks/cpu"},
			{"CPU", "load", "benchmarks/cpu"},
		} {
			want := 0
			for _, m := range res.JobResults.Jobs[c.service].Measurements[0] {
				if m.Name == c.name {
					want++
				}
			}
			if !hasLine(paths[c.chart], plotutil.Color(run), want) {
				t.Errorf("%s: no %s line of %s with %d points; paths: %v", c.chart, file, c.service, want, paths[c.chart])
			}
		}
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	for run := range files {
		n, want := 0, plotutil.Color(run)
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if near(img.At(x, y), want) {
					n++
				}
			}
		}
		if n < 200 {
			t.Errorf("run %d's colour covers %d pixels of the requests/s chart, want a line", run+1, n)
		}
	}
	if testing.Verbose() {
		t.Logf("screenshot of the requests/s chart: %d bytes", len(shot))
	}
}

// hasLine tells whether a path stroked in colour c joins want points.
func hasLine(paths []pathInfo, c color.Color, want int) bool {
	r, g, b, _ := c.RGBA()
	stroke := strings.ToLower("stroke:#" + hex2(r) + hex2(g) + hex2(b))
	for _, p := range paths {
		if strings.Contains(p.Style, stroke+";") && p.Points == want {
			return true
		}
	}
	return false
}

func hex2(v uint32) string {
	const digits = "0123456789abcdef"
	v >>= 8
	return string([]byte{digits[v>>4], digits[v&15]})
}

// near tells whether a pixel is the colour c (within anti-aliasing).
func near(px, c color.Color) bool {
	r1, g1, b1, _ := px.RGBA()
	r2, g2, b2, _ := c.RGBA()
	d := func(a, b uint32) int { x := int(a>>8) - int(b>>8); return x * x }
	return d(r1, r2)+d(g1, g2)+d(b1, b2) < 40*40
}
