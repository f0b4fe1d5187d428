package gate

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/results/resultstest"
)

// testdata/crank/{base,head}.json are crank's own result documents (the fortunes runs of crank's
// regression bot test assets) in crank's --json shape: results hold strings (netSdkVersion) beside
// numbers, metadata is empty, there is no startTime.
func TestCompareReadsCrankResultFiles(t *testing.T) {
	head := resultstest.ReadResult(t, "testdata/crank/head.json")
	load := head.JobResults.Jobs["load"]
	if load == nil || load.Values["netSdkVersion"] != "3.1.409" || load.Results["wrk/rps/mean"] != 458560.56 {
		t.Fatalf("load = %+v", load)
	}
	var out, errOut bytes.Buffer
	code := Compare(context.Background(), []string{"testdata/crank/base.json", "testdata/crank/head.json"}, &out, &errOut)
	// One run a side: no interval, so even p99 18.95% higher is inconclusive (exit 3).
	if code != ExitInconclusive {
		t.Fatalf("exit %d, want %d (single runs); stderr: %s", code, ExitInconclusive, errOut.String())
	}
	for _, want := range []string{"468,142.53 458,560.56 -2.05% inconclusive", "http/latency/99 - 4.01 4.77 +18.95% inconclusive",
		"inconclusive: load http/latency/99: no interval from 1 iteration: 3 iterations on each side at least"} {
		if !strings.Contains(flat(out.String()), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
