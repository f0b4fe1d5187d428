//go:build measure

package e2e

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/profiler"
	"github.com/crankshaft/crankshaft/internal/stats"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestCollectOverhead measures what collect costs the plaintext app: requests/s with and without
// perf (99 Hz) and Go's profiles, in pairs of runs whose order alternates (off-on, then on-off, so
// a drift of the machine and the second run's position weigh alike on both), judged on the mean
// log ratio of the pairs with its 95 % interval (issue 46: at most 3 %). It passes when the whole
// interval keeps at least 97 %, fails when it lies below, and otherwise fails saying it cannot
// tell and how many pairs would. Only a quiet machine's figure belongs in docs/PROFILES.md.
func TestCollectOverhead(t *testing.T) {
	if err := profiler.Probe(context.Background()); err != nil {
		testutil.Missing(t, "%v", err)
	}
	const pairs, floor = 12, 0.97
	var logs []float64
	for i := range pairs {
		var rps [2]float64 // without, with
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false}
		}
		for _, collect := range order {
			dir := t.TempDir()
			args := plaintextProfiled(t, dir, "--variable", "duration=5", "--variable", "warmup=1")
			if !collect {
				args = append(args, "--application.collect", "false", "--application.goProfiles", "false")
			}
			r := crank(t, 3*time.Minute, args...)
			if r.code != 0 {
				t.Fatalf("run %d (collect %v): exit %d\n%s\n%s", i, collect, r.code, r.stdout, r.stderr)
			}
			k := 0
			if collect {
				k = 1
			}
			rps[k] = readResult(t, filepath.Join(dir, "r.json")).JobResults.Jobs["load"].Results["http/rps/mean"]
		}
		t.Logf("pair %d: %.0f req/s without, %.0f with collect (%.3f)", i+1, rps[0], rps[1], rps[1]/rps[0])
		logs = append(logs, math.Log(rps[1]/rps[0]))
	}
	mean, half := stats.MeanCI95(logs)
	lo, hi := math.Exp(mean-half), math.Exp(mean+half)
	t.Logf("collect keeps %.1f %% of requests/s, 95 %% interval [%.1f %%, %.1f %%] over %d pairs (a pair's spread %.1f %%)",
		100*math.Exp(mean), 100*lo, 100*hi, pairs, 100*stats.StdDev(logs))
	switch {
	case lo >= floor:
		t.Logf("collect costs at most %.1f %% of requests/s: within 3 %%", 100*(1-lo))
	case hi < floor:
		t.Errorf("collect costs %.1f %% to %.1f %% of requests/s: more than 3 %%", 100*(1-hi), 100*(1-lo))
	default:
		// The interval's half-width shrinks as 1/sqrt(pairs): the pairs that would put it clear of 3 %.
		need := math.Abs(mean - math.Log(floor))
		more := "a cost this close to 3 % cannot be told apart from it"
		if need > 0 {
			more = "about " + strconv.Itoa(int(math.Ceil(pairs*(half/need)*(half/need)))) + " pairs would tell"
		}
		t.Errorf("cannot tell whether collect costs more than 3 %%: the interval [%.1f %%, %.1f %%] of requests/s kept "+
			"straddles 97 %%; %s (a quiet machine narrows it)", 100*lo, 100*hi, more)
	}
}
