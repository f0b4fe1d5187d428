package controller

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

func encoded(t *testing.T, us ...int64) (string, float64) {
	t.Helper()
	h := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
	for _, v := range us {
		_ = h.RecordValue(v)
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), float64(h.ValueAtQuantile(99)) / 1000
}

func loadInstance(url string, off time.Duration, start time.Time, asked, achieved, p99 float64, hist string) *instance {
	end := start.Add(2 * time.Second)
	c := measure.Default()
	rps, _ := c.Lookup(measure.RPS)
	lat, _ := c.Lookup(measure.Latency99)
	return &instance{service: "load", url: url, clockOffset: off, job: api.Job{WaitForExit: true, Parser: startAtParser},
		share: &Share{Weight: 1, Variables: map[string]int{"rate": int(asked)}},
		measured: api.Measurements{
			Metadata: []api.Metadata{rps, lat},
			Measurements: []api.Measurement{
				{Name: measure.RPS, Timestamp: end, Value: achieved},
				{Name: measure.Latency99, Timestamp: end, Value: p99},
			},
			Load: &api.LoadReport{Start: start.Add(off), End: end.Add(off), AskedRate: asked, AchievedRate: achieved, Histogram: hist},
		}}
}

// TestGenerators: two generators, one fast and one slow, whose windows (each on its agent's
// clock) began 20 ms apart on the controller's: the load's p99 is the merged histogram's, not the
// larger p99; each keeps its own; the one short of its rate by more than 5 % fell behind.
func TestGenerators(t *testing.T) {
	fast := make([]int64, 1000)
	slow := make([]int64, 1000)
	all := make([]int64, 0, 2000)
	for i := range fast {
		fast[i], slow[i] = int64(100+i%50), int64(1000+i)
	}
	all = append(append(all, fast...), slow...)
	hf, p99f := encoded(t, fast...)
	hs, p99s := encoded(t, slow...)
	_, want := encoded(t, all...)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ins := []*instance{
		loadInstance("http://a", time.Second, t0, 1000, 999, p99f, hf),
		loadInstance("http://b", -time.Second, t0.Add(20*time.Millisecond), 1000, 900, p99s, hs),
	}
	if at := oneStart(ins, t0.Add(-startLead)); !at.Equal(t0) || !ins[0].job.StartAt.Equal(t0.Add(time.Second)) || !ins[1].job.StartAt.Equal(t0.Add(-time.Second)) {
		t.Fatalf("one start %s; on the agents' clocks %s, %s", at, ins[0].job.StartAt, ins[1].job.StartAt)
	}
	// wrk starts when started: given a start, its whole window would fall before it.
	wrk := loadInstance("http://c", 0, t0, 1000, 1000, p99f, hf)
	wrk.job.Parser = "wrk"
	if at := oneStart([]*instance{wrk}, t0); !at.IsZero() || wrk.job.StartAt != nil {
		t.Errorf("wrk given the one start %s (%v): it does not wait for one", at, wrk.job.StartAt)
	}
	jobs, err := assemble([]Service{{Name: "load", Job: api.Job{WaitForExit: true}}}, ins)
	if err != nil {
		t.Fatal(err)
	}
	jr := jobs["load"]
	if got := jr.Results[measure.Latency99]; got != want || got == p99s {
		t.Errorf("p99 %v, want the merged %v (the larger is %v)", got, want, p99s)
	}
	if jr.Results[measure.LoadStartSpread] != 20 || jr.Results[measure.LoadAskedRate] != 2000 || jr.Results[measure.LoadStartLate] != 20 {
		t.Errorf("spread %v ms, asked %v, late %v ms", jr.Results[measure.LoadStartSpread], jr.Results[measure.LoadAskedRate], jr.Results[measure.LoadStartLate])
	}
	g := jr.Generators
	if len(g) != 2 || g[0].Results[measure.Latency99] != p99f || g[0].FellBehind || !g[1].FellBehind || !g[0].Start.Equal(t0) ||
		g[0].Results[measure.LoadStartLate] != 0 || g[1].Results[measure.LoadAskedRate] != 1000 {
		t.Fatalf("generators %+v", g)
	}
	behind := results.FellBehind(jobs)
	if len(behind) != 1 || !strings.Contains(behind[0], "load: the generator on http://b fell behind: 900 of the 1,000 req/s asked (90.0 %") {
		t.Errorf("fell behind: %q", behind)
	}
	// without histograms (wrk), the reduction's max stays, said to be approximate
	for _, in := range ins {
		in.measured.Load = nil
	}
	jobs, err = assemble([]Service{{Name: "load", Job: api.Job{WaitForExit: true}}}, ins)
	if err != nil {
		t.Fatal(err)
	}
	if jr := jobs["load"]; jr.Results[measure.Latency99] != p99s || !strings.Contains(jr.Approximate[measure.Latency99], "no latency histogram") {
		t.Errorf("without histograms: p99 %v, approximate %v", jr.Results[measure.Latency99], jr.Approximate)
	}
	var tbl strings.Builder
	res := &results.Result{JobResults: results.JobResults{Jobs: jobs}}
	if err := results.WriteTables(&tbl, res, []string{"load"}); err != nil || !strings.Contains(tbl.String(), "(approximation: the highest of the 2 generators' values") {
		t.Errorf("table (%v):\n%s", err, tbl.String())
	}
}

func TestWarmupOf(t *testing.T) {
	cases := []struct {
		args string
		job  time.Duration
		vars map[string]any
		want time.Duration
	}{
		{"", time.Second, map[string]any{"warmup": 5}, time.Second},
		{"load -d 5s", 0, map[string]any{"warmup": 5}, 5 * time.Second},
		{"load -d 5s", 0, map[string]any{"warmup": 1.5}, 1500 * time.Millisecond},
		{"load", 0, map[string]any{"warmup": "3s"}, 3 * time.Second},
		{"load", 0, nil, 0},
	}
	for _, c := range cases {
		if got := warmupOf(c.args, c.job, c.vars); got != c.want {
			t.Errorf("warmupOf(%q, %s, %v) = %s, want %s", c.args, c.job, c.vars, got, c.want)
		}
	}
}

// TestImplausiblePartFailsTheMerge: one of three generators reporting -1e9 req/s made the merged
// http/rps/mean -999,998,000 with no word; now the merge fails naming its agent and the figure.
// So do a rate its requests and window cannot give, latency percentiles out of order, a negative
// latency, a load report's rate that is not a number and a window that ends before it starts
// (issue 41, MEDIUM 7).
func TestImplausiblePartFailsTheMerge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hist, p99 := encoded(t, 100, 200, 300)
	withReqs := func(in *instance, reqs float64) *instance {
		in.measured.Metadata = append(in.measured.Metadata, api.Metadata{Name: measure.Requests, Aggregate: api.OpMax, Reduce: api.OpSum})
		in.measured.Measurements = append(in.measured.Measurements, api.Measurement{Name: measure.Requests, Timestamp: t0, Value: reqs})
		return in
	}
	honest := func(url string) *instance { return withReqs(loadInstance(url, 0, t0, 1000, 1000, p99, hist), 2000) }
	cases := map[string]struct {
		bad  *instance
		want []string
	}{
		"negative rate": {withReqs(loadInstance("http://bad", 0, t0, 1000, -1e9, p99, hist), 2000),
			[]string{"http/rps/mean: the tool gave -1e+09, which no run can measure", "load report achievedRate: the agent gave -1e+09"}},
		"rate beyond its requests": {withReqs(loadInstance("http://bad", 0, t0, 1000, 1e6, p99, hist), 2000),
			[]string{"http/rps/mean: 1,000,000 req/s, more than 4 times what its 2,000 requests over its 2s window allow"}},
		"negative latency": {honestWith(honest("http://bad"), measure.Latency50, -3), []string{"http/latency/50: the tool gave -3"}},
		"percentiles out of order": {honestWith(honestWith(honest("http://bad"), measure.Latency50, 50), measure.Latency90, 5),
			[]string{"http/latency/90: the tool printed 5 ms, below http/latency/50's 50 ms"}},
		"not a number": {func() *instance { in := honest("http://bad"); in.measured.Load.AskedRate = math.NaN(); return in }(),
			[]string{"load report askedRate: the agent gave NaN"}},
		"window backwards": {func() *instance { in := honest("http://bad"); in.measured.Load.End = t0.Add(-time.Second); return in }(),
			[]string{"load report window: it ends 1s before it starts"}},
	}
	for name, c := range cases {
		ins := []*instance{honest("http://a"), c.bad, honest("http://c")}
		err := generators(mergedOf(ins), ins)
		if err == nil {
			t.Errorf("%s: merged, want an error naming http://bad", name)
			continue
		}
		for _, w := range append(c.want, "the generator on http://bad reported what no run can measure") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to say %q", name, err, w)
			}
		}
	}
	ins := []*instance{honest("http://a"), honest("http://b"), honest("http://c")}
	jr := mergedOf(ins)
	if err := generators(jr, ins); err != nil || jr.Results[measure.RPS] != 3000 {
		t.Errorf("three honest parts: %v, http/rps/mean %v, want 3000", err, jr.Results[measure.RPS])
	}
}

// mergedOf is the load's result before its generators are filled in, as assemble makes it.
func mergedOf(ins []*instance) *results.JobResult {
	jr := &results.JobResult{}
	for _, in := range ins {
		jr.Metadata = results.MergeMetadata(jr.Metadata, in.measured.Metadata)
		jr.Measurements = append(jr.Measurements, in.measured.Measurements)
	}
	jr.Results, _ = results.Summarize(jr.Metadata, jr.Measurements)
	return jr
}

// honestWith adds a sample of name to the part.
func honestWith(in *instance, name string, v float64) *instance {
	in.measured.Metadata = append(in.measured.Metadata, api.Metadata{Name: name, Aggregate: api.OpMax, Reduce: api.OpMax})
	in.measured.Measurements = append(in.measured.Measurements, api.Measurement{Name: name, Timestamp: in.measured.Load.End, Value: v})
	return in
}

// TestKeepPlausibleLeavesTheBadPartOut: the run that fails on implausible parts keeps the other
// generators' figures, as one that lost a generator does: the load's requests/s is the honest
// generators' sum, each implausible one is listed as failed with why, and the error names each.
func TestKeepPlausibleLeavesTheBadPartOut(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hist, p99 := encoded(t, 100, 200, 300)
	part := func(url string, rps float64) *instance { return loadInstance(url, 0, t0, 1000, rps, p99, hist) }
	services := []Service{{Name: "load", Job: api.Job{WaitForExit: true}}}
	jobs, err := keepPlausible(services, []*instance{part("http://a", 1000), part("http://bad", -1e9), part("http://c", 1000), part("http://worse", math.Inf(-1))})
	ip := (*ImplausiblePart)(nil)
	if !errors.As(err, &ip) || !strings.Contains(err.Error(), `service "load": the generator on http://bad reported what no run can measure`) ||
		!strings.Contains(err.Error(), "the generator on http://worse reported") {
		t.Fatalf("error %v, want both implausible generators named", err)
	}
	load := jobs["load"]
	if load == nil || load.Results[measure.RPS] != 2000 {
		t.Fatalf("load %+v, want http/rps/mean 2000 from the two honest generators", load)
	}
	failed := map[string]string{}
	for _, g := range load.Generators {
		failed[g.Endpoint] = g.Failed
	}
	if len(failed) != 4 || failed["http://a"] != "" || !strings.Contains(failed["http://bad"], "the tool gave -1e+09") || !strings.Contains(failed["http://worse"], "the tool gave -Inf") {
		t.Errorf("generators %v, want a and c measured, bad and worse failed with why", failed)
	}
}
