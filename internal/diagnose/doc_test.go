package diagnose

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

var update = flag.Bool("update", false, "rewrite the thresholds and verdicts tables of docs/MEASUREMENTS.md")

const docPath = "../../docs/MEASUREMENTS.md"

// thresholdDocs says what each field of Thresholds means; a field missing here fails the test.
var thresholdDocs = map[string]string{
	"Saturated":          "share of the CPU a job can use at which it is saturated",
	"ErrorShare":         "share of failed requests (bad responses and socket errors) above which a run is error-bound",
	"ServedShare":        "share of the load's good requests/s the application must say it served (`runtime-counter/requests-per-second`, when it reports it) below which a run is unserved (healthy runs of Benchmarks' plaintext, json and gRPC scenarios read 0.945 to 1.012; the failure it catches reads 0)",
	"LockWaitMin":        "ms/s of lock waiting (runtime-counter/lock-contention) below which contention is never high",
	"LockWaitPerCPU":     "ms of lock waiting per ms of the server's CPU time from which contention is high",
	"MonitorContentions": "monitor lock contentions per second (.NET) from which contention is high",
	"MachineFull":        "share of a shared machine's CPU (cpu/global) from which two of the run's jobs, each using at least 1 - Saturated of it, fill it together (machine-saturated)",
	"OtherShare":         "share of a machine's CPU used outside the run from which it is reported busy",
	"StealShare":         "share of a machine's CPU time its hypervisor gave to other guests (`benchmarks/cpu/steal`) from which machine-busy names it and crank bisect and crank capacity measure again (steal counts in the CPU outside the run already)",
	"ManyConnections":    "connections from which underloaded no longer suggests more",
	"FewPipeline":        "pipeline depth below which underloaded suggests a deeper one",
	"BusyThread":         "CPU (% of a core) per load thread from which underloaded suggests more threads",
	"RateReached":        "share of a load's rate cap its RPS must reach for underloaded to blame the cap",
	"ProbeGain":          "RPS gain below which the probe at twice the connections (or a second probe against the first) turns underloaded or waiting into serialized",
	"ProbeRise":          "RPS gain from which the probe at twice the connections shows the load too light (underloaded); between ProbeGain and it a second probe at twice the first's connections, compared with the first, decides by the same two thresholds, and a second step between them keeps the verdict and says the probes cannot tell (a serialized server's probe read +19 % and +21 % in the conformance run of 2026-11-30, waiting servers' +59 % to +161 %)",
	"TailRatio":          "how many times a load's p50 its p99 must reach for the tail to be the verdict (freezes or long-tail)",
	"TailMin":            "ms the p99 must reach as well for the tail to be the verdict",
	"QueueMin":           "requests in flight (Little's law: requests/s x mean latency, else a closed loop's connections x pipeline) from which they can wait behind each other",
	"WaitShare":          "share of the requests' time in flight on no CPU of the run (1 - cores busy / requests in flight) from which they wait (waiting, not underloaded)",
}

// TestThresholdsDoc fails when the thresholds table of docs/MEASUREMENTS.md differs from
// DefaultThresholds. `go test ./internal/diagnose -run Doc -update` rewrites it.
func TestThresholdsDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString("| field | default | meaning |\n| --- | --- | --- |\n")
	v := reflect.ValueOf(DefaultThresholds())
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		meaning, ok := thresholdDocs[name]
		if !ok {
			t.Errorf("Thresholds.%s has no description in thresholdDocs", name)
		}
		fmt.Fprintf(&b, "| `%s` | %v | %s |\n", name, v.Field(i).Interface(), meaning)
	}
	updateBlock(t, "thresholds", b.String())
}

// updateBlock fails when the block between <!-- name:start --> and <!-- name:end --> of
// docs/MEASUREMENTS.md is not content; with -update it rewrites it.
func updateBlock(t *testing.T, name, content string) {
	t.Helper()
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start, end := "<!-- "+name+":start -->\n", "<!-- "+name+":end -->"
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q block", docPath, strings.TrimSpace(start), end)
	}
	fresh := doc[:i+len(start)] + content + doc[j:]
	switch {
	case fresh == doc:
	case *update:
		if err := os.WriteFile(docPath, []byte(fresh), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("%s is stale: run go test ./internal/diagnose -run Doc -update", docPath)
	}
}

// verdictExamples gives, for each kind, a synthetic run diagnosed to it (with the probe folded
// in for the kinds the probe decides).
func verdictExamples() map[string][]results.Diagnostic {
	th := DefaultThresholds()
	rated := func(rps float64) map[string]float64 { r := wrk(0, 0); r[measure.RPS] = rps; return r }
	d := func(jobs map[string]fakeJob) []results.Diagnostic { return Diagnose(runOf(jobs), th) }
	light := probeRun(32, 980, 14, 12)
	return map[string][]results.Diagnostic{
		ErrorBound: d(map[string]fakeJob{
			"application": {raw: []float64{50}, global: 7, cores: 8, host: "srv"},
			"load":        {raw: []float64{100}, global: 20, cores: 8, host: "cli", results: wrk(20000, 500)}}),
		Unserved: d(map[string]fakeJob{
			"application": {raw: []float64{70}, global: 60, cores: 2, host: "box", results: map[string]float64{measure.RequestsPerSecond: 0, measure.ExceptionCount: 0}},
			"load":        {raw: []float64{25}, global: 60, cores: 2, host: "box", results: h2load(21976)}}),
		Freezes: d(freezing(func(s int) float64 {
			if s%5 == 2 {
				return 480
			}
			return 0.2
		})),
		LongTail: d(freezing(nil)),
		RateCapped: d(map[string]fakeJob{
			"application": {raw: []float64{5}, global: 10, cores: 2, host: "box"},
			"load":        {raw: []float64{8}, global: 10, cores: 2, host: "box", vars: map[string]any{"connections": 32, "rate": 1000}, results: rated(998)}}),
		MachineBusy: d(map[string]fakeJob{
			"application": {raw: []float64{60}, global: 98, cores: 2, host: "box"},
			"load":        {raw: []float64{40}, global: 95, cores: 2, host: "box", results: wrk(0, 0)}}),
		MachineSaturated: d(map[string]fakeJob{
			"application": {raw: []float64{92}, global: 98, cores: 2, host: "box"},
			"load":        {raw: []float64{98}, global: 98, cores: 2, host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)}}),
		ClientBound: d(map[string]fakeJob{
			"application": {raw: []float64{300}, global: 40, cores: 8, host: "srv"},
			"load":        {raw: []float64{396}, global: 50, cores: 8, host: "cli", vars: wrkVars(4, 256, 1), results: wrk(0, 0)}}),
		ServerBound: d(map[string]fakeJob{
			"application": {raw: []float64{775}, global: 97, cores: 8, host: "srv"},
			"load":        {raw: []float64{150}, global: 20, cores: 8, host: "cli", results: wrk(0, 0)}}),
		ContentionBound: d(map[string]fakeJob{
			"application": {raw: []float64{112}, global: 15, cores: 8, host: "srv", results: map[string]float64{measure.LockContention: 2400}},
			"load":        {raw: []float64{120}, global: 16, cores: 8, host: "cli", results: wrk(0, 0)}}),
		Waiting:     Diagnose(light, th),
		Underloaded: Probe(Diagnose(light, th), light, th, probeRun(64, 1900, 20, 14)),
		Serialized:  Probe(Diagnose(light, th), light, th, probeRun(64, 1010, 14, 12)),
	}
}

// TestVerdictsDoc: every kind is documented once, in order, with the figures its example rests
// on; the verdicts table of docs/MEASUREMENTS.md is generated from them.
func TestVerdictsDoc(t *testing.T) {
	kinds := []string{ErrorBound, Unserved, Freezes, LongTail, RateCapped, MachineBusy, MachineSaturated, ClientBound, ServerBound, ContentionBound, Waiting, Underloaded, Serialized}
	docs := KindDocs()
	examples := verdictExamples()
	var b strings.Builder
	b.WriteString("| verdict | when | rests on |\n| --- | --- | --- |\n")
	for i, k := range docs {
		if i >= len(kinds) || k.Kind != kinds[i] {
			t.Fatalf("KindDocs()[%d] is %q, want the kinds in order: %v", i, k.Kind, kinds)
		}
		ds := examples[k.Kind]
		if len(ds) == 0 || ds[0].Kind != k.Kind {
			t.Fatalf("the example of %s is diagnosed %s", k.Kind, show(ds))
		}
		var figs []string
		for _, f := range ds[0].Figures {
			s := "`" + f.Name + "`"
			if f.Stat != "" {
				s += " " + f.Stat
			}
			if f.Unit != "" {
				s += " (" + f.Unit + ")"
			}
			if !slices.Contains(figs, s) {
				figs = append(figs, s)
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Kind, k.When, strings.Join(figs, ", "))
	}
	if len(docs) != len(kinds) {
		t.Errorf("%d kinds documented, want %d", len(docs), len(kinds))
	}
	updateBlock(t, "verdicts", b.String())
}
