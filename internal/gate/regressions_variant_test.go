package gate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestRegressionsPerVariantAndMachine is the nightly history: the grpc scenario on two
// machines (x64, an 80-core arm64) with partitioning on and off, 14 nights, and a 20% drop on
// arm64 with partitioning off from night 9. Keyed by scenario, profile, arch and service only,
// the four series would be one zig-zag line and the drop lost; keyed by machine and variant too,
// exactly that series has a change point, written with its machine and variant tags.
func TestRegressionsPerVariantAndMachine(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 9))
	first := time.Now().UTC().Truncate(time.Second).Add(-15 * 24 * time.Hour)
	level := map[string]float64{"x64/on": 1_080_000, "x64/off": 670_000, "arm64/on": 1_100_000, "arm64/off": 660_000}
	runs := nightlyVariants(rng, first, level)
	srv, getenv := influxEnv(t, runs)
	code, out, errOut := runRegressionsEnv(getenv, "--scenario", "grpc", "--metric", measure.RPS, "--fail-on-regression")
	if code != ExitRegressed || !strings.Contains(out, "1 change point(s) in 4 series over 56 results") {
		t.Fatalf("exit %d, want a regression in 4 series over 56 results:\n%s\n%s", code, out, errOut)
	}
	f := oneFinding(t, getenv, "--scenario", "grpc", "--metric", measure.RPS)
	if f.Machine != "arm-80" || f.Arch != "arm64" || f.Variant != "partitioning=off" || !f.Regression ||
		f.Index < 8 || f.Index > 10 || f.Change > -0.17 || f.Change < -0.23 {
		t.Errorf("finding %+v, want arm-80 partitioning=off -20%% from night 9", f)
	}
	s, err := influx.Query(context.Background(), srv.URL, "", srv.DB,
		`SELECT "change_pct" FROM "crank_changepoint" GROUP BY "machine", "variant", "arch"`)
	if err != nil || len(s) != 1 || len(s[0].Values) != 1 {
		t.Fatalf("change points: %v %+v", err, s)
	}
	if tg := s[0].Tags; tg["machine"] != "arm-80" || tg["variant"] != "partitioning=off" || tg["arch"] != "arm64" {
		t.Errorf("change point tags %v", tg)
	}
	// The nightly trend: one line per (scenario, machine, variant), each with its 14 nights.
	s, err = influx.Query(context.Background(), srv.URL, "", srv.DB,
		`SELECT "http/rps/mean" FROM "crank_summary" WHERE "service" = 'load' GROUP BY "scenario", "machine", "variant"`)
	if err != nil || len(s) != 4 {
		t.Fatalf("nightly series: %v, %d, want 4", err, len(s))
	}
	for _, x := range s {
		if len(x.Values) != 14 {
			t.Errorf("series %v: %d points, want 14", x.Tags, len(x.Values))
		}
	}
}

// nightlyVariants builds 14 nights of grpc runs, one per machine and variant ("arch/partitioning"
// -> level), with 1% noise and the arm64/off level down 20% from night 9 (index 8).
func nightlyVariants(rng *rand.Rand, first time.Time, level map[string]float64) []*results.Result {
	var out []*results.Result
	for night := range 14 {
		i := 0
		for _, arch := range []string{"x64", "arm64"} {
			for _, part := range []string{"on", "off"} {
				l := level[arch+"/"+part]
				if arch == "arm64" && part == "off" && night >= 8 {
					l *= 0.8
				}
				r := newResult(rng, 0, rps(l*(1+0.01*rng.NormFloat64()), 0))
				r.Scenario, r.Profiles = "grpc", []string{"lab"}
				r.StartTime = first.Add(time.Duration(night)*24*time.Hour + time.Duration(i)*time.Minute)
				r.Session = fmt.Sprintf("n%02d-%s-%s", night, arch, part)
				r.Variant = map[string]string{"partitioning": part}
				machine := map[string]string{"x64": "x64-12", "arm64": "arm-80"}[arch]
				r.JobResults.Jobs["load"].Environment = map[string]any{"arch": arch, "os": "linux", "hardware": machine}
				out = append(out, r)
				i++
			}
		}
	}
	return out
}
