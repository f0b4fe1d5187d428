package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/dashcheck"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/influxtest"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/results/resultstest"
)

// TestNightlyPerMachineAndVariant is the acceptance: real plaintext runs in two variants
// (--variable dispatch=shared / partitioned) from two machines (CRANK_MACHINE), each preceded by
// synthetic nights made from it, with a 20% drop from night 9 in one variant on one machine. The
// nightly panel draws one line per (scenario, machine, variant); `crank regressions` finds the
// drop in that series only and writes it with its machine and variant; the dashboards pass the
// check on that history.
func TestNightlyPerMachineAndVariant(t *testing.T) {
	db := influxtest.Start(t)
	flags := []string{"--influx-url", db.URL, "--influx-bucket", db.DB + "/autogen"}
	spool := "CRANK_SPOOL_DIR=" + t.TempDir()
	const nights = 14 // with fewer, a permutation test cannot reach p 0.001
	rng := rand.New(rand.NewPCG(16, 20))
	for _, machine := range []string{"lab-a", "lab-b"} {
		for _, dispatch := range []string{"shared", "partitioned"} {
			out := filepath.Join(t.TempDir(), "out.json")
			r := plaintextRun(t, []string{spool, "CRANK_MACHINE=" + machine}, out,
				append([]string{"--variable", "dispatch=" + dispatch}, flags...)...)
			if r.code != 0 {
				t.Fatalf("%s %s: exit %d\n%s", machine, dispatch, r.code, r.stderr)
			}
			real := resultstest.ReadResult(t, out)
			// Every variable set to other than its default is part of the variant; ports are not.
			if got := influx.VariantOf(real); got != "dispatch="+dispatch+",duration=2,warmup=1" {
				t.Fatalf("variant %q, want dispatch=%s,duration=2,warmup=1", got, dispatch)
			}
			drop := machine == "lab-b" && dispatch == "partitioned"
			for night := range nights - 1 { // the real run is the last night
				level := 1 + 0.004*rng.NormFloat64()
				if drop && night < 8 {
					level *= 1.25 // the later nights, the real run among them, are 20% lower
				}
				cfg := influx.Config{URL: db.URL, Bucket: db.DB + "/autogen", SpoolDir: t.TempDir(),
					Tags: influx.Tags{Machine: machine}}
				back := time.Duration(nights-1-night) * 24 * time.Hour
				if sum, err := influx.Publish(context.Background(), cfg, pastNight(real, back, level), nil); err != nil || sum.Err != nil {
					t.Fatalf("publish night %d: %v %v", night, err, sum.Err)
				}
			}
		}
	}

	s, err := influx.Query(context.Background(), db.URL, "", db.DB,
		`SELECT "http/rps/mean" FROM "crank_summary" WHERE "service" = 'load' GROUP BY "scenario", "machine", "variant"`)
	if err != nil || len(s) != 4 {
		t.Fatalf("nightly lines: %v, %d series, want 4", err, len(s))
	}
	for _, x := range s {
		if len(x.Values) != nights {
			t.Errorf("line %v: %d nights, want %d", x.Tags, len(x.Values), nights)
		}
	}

	r := crankEnv(t, time.Minute, []string{spool}, append([]string{"regressions", "--scenario", "plaintext",
		"--metric", measure.RPS, "--format", "json"}, flags...)...)
	var found []struct {
		Service, Machine, Variant string
		Change                    float64
		Regression                bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &found); r.code != 0 || err != nil {
		t.Fatalf("crank regressions: exit %d, %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	if len(found) != 1 || found[0].Machine != "lab-b" || found[0].Variant != "dispatch=partitioned,duration=2,warmup=1" ||
		!found[0].Regression || found[0].Change > -0.15 || found[0].Change < -0.25 {
		t.Fatalf("findings %+v, want one -20%% regression on lab-b dispatch=partitioned\n%s", found, r.stderr+crankEnv(t, time.Minute, []string{spool}, append([]string{"regressions", "--scenario", "plaintext", "--metric", measure.RPS, "--write-changepoints=false"}, flags...)...).stdout)
	}
	cp, err := influx.Query(context.Background(), db.URL, "", db.DB, `SELECT "change_pct" FROM "crank_changepoint" GROUP BY "machine", "variant"`)
	if err != nil || len(cp) != 1 || cp[0].Tags["machine"] != "lab-b" || cp[0].Tags["variant"] != "dispatch=partitioned,duration=2,warmup=1" {
		t.Errorf("crank_changepoint: %v %+v", err, cp)
	}
	if err := dashcheck.Check(context.Background(), db.URL, db.DB, filepath.Join(testEnv.root, "dashboards")); err != nil {
		t.Errorf("dashboards:\n%v", err)
	}
}

// pastNight is a copy of a real run moved back by back, its session renamed and its load's
// requests/sec scaled by level.
func pastNight(real *results.Result, back time.Duration, level float64) *results.Result {
	b, _ := json.Marshal(real)
	var r results.Result
	_ = json.Unmarshal(b, &r)
	r.StartTime = r.StartTime.Add(-back)
	r.Session = fmt.Sprintf("%s-%dd", r.Session, int(back.Hours()/24))
	for name, jr := range r.JobResults.Jobs {
		for _, tl := range jr.Measurements {
			for i := range tl {
				tl[i].Timestamp = tl[i].Timestamp.Add(-back)
			}
		}
		if strings.HasPrefix(name, "load") {
			jr.Results[measure.RPS] *= level
		}
	}
	return &r
}
