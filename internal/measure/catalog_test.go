package measure_test

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/loadgen"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/registry"
	"github.com/crankshaft/crankshaft/internal/results"
)

// KB is crank's unit for its benchmarks/published-size, kept so that the name means crank's number.
var units = []string{measure.UnitPercent, measure.UnitMB, measure.UnitMs, measure.UnitRPS,
	measure.UnitCount, measure.UnitPerSec, measure.UnitMsPerSec, measure.UnitMBPerSec, measure.UnitKB, measure.UnitUs, measure.UnitRatio}

// TestCatalogEntries: every entry has a known unit, operations results.Apply knows, a format, a
// source and descriptions, and no name is declared twice.
func TestCatalogEntries(t *testing.T) {
	format := regexp.MustCompile(`^n[0-9]$`)
	seen := map[string]bool{}
	for _, m := range measure.List() {
		if seen[m.Name] {
			t.Errorf("%s declared twice", m.Name)
		}
		seen[m.Name] = true
		if !slices.Contains(units, m.Unit) {
			t.Errorf("%s: unit %q, want one of %v", m.Name, m.Unit, units)
		}
		if !results.ValidOperation(m.Aggregate) || !results.ValidOperation(m.Reduce) {
			t.Errorf("%s: aggregate %q reduce %q", m.Name, m.Aggregate, m.Reduce)
		}
		if !format.MatchString(m.Format) || m.Source == "" || m.ShortDescription == "" || m.LongDescription == "" {
			t.Errorf("%s: format %q source %q descriptions %q / %q", m.Name, m.Format, m.Source, m.ShortDescription, m.LongDescription)
		}
	}
	if len(measure.Default()) != len(measure.List()) {
		t.Errorf("Default has %d entries, List %d", len(measure.Default()), len(measure.List()))
	}
}

// TestUnitsByKind: the same kind of quantity has the same unit everywhere.
func TestUnitsByKind(t *testing.T) {
	c := measure.Default()
	want := map[string]string{
		measure.CPU: measure.UnitPercent, measure.CPURaw: measure.UnitPercent, measure.CPUGlobal: measure.UnitPercent,
		measure.WorkingSet: measure.UnitMB, measure.PrivateMemory: measure.UnitMB,
		measure.BuildTime: measure.UnitMs, measure.StartTime: measure.UnitMs,
		measure.LatencyMean: measure.UnitMs, measure.Latency50: measure.UnitMs, measure.Latency99: measure.UnitMs,
		measure.LatencyMax: measure.UnitMs, measure.GCPauseP99: measure.UnitMs, measure.SchedLatencyP99: measure.UnitMs,
		measure.RPS: measure.UnitRPS, measure.WrkRPS: measure.UnitRPS, measure.GRPCRPS: measure.UnitRPS,
		measure.LockContention: measure.UnitMsPerSec, measure.GCPause: measure.UnitMsPerSec,
		measure.ExceptionCount: measure.UnitPerSec, measure.MonitorLockContention: measure.UnitPerSec,
		measure.Requests: measure.UnitCount, measure.Goroutines: measure.UnitCount,
		measure.CPUPerRequest: measure.UnitUs, measure.BenchCPUPerRequest: measure.UnitUs,
	}
	for name, unit := range want {
		if got := c[name].Unit; got != unit {
			t.Errorf("%s: unit %q, want %q", name, got, unit)
		}
	}
}

// TestReduceAcrossEndpoints: several load agents add their throughput and take the worst latency.
func TestReduceAcrossEndpoints(t *testing.T) {
	c := measure.Default()
	for _, name := range []string{measure.RPS, measure.WrkRPS, measure.BombardierRPS, measure.GRPCRPS,
		measure.BuiltinRPS, measure.Requests, measure.BadResponses, measure.Errors} {
		if c[name].Reduce != api.OpSum {
			t.Errorf("%s: reduce %q, want sum", name, c[name].Reduce)
		}
	}
	for _, name := range []string{measure.LatencyMean, measure.Latency50, measure.Latency75, measure.Latency90,
		measure.Latency99, measure.LatencyMax} {
		if c[name].Reduce != api.OpMax {
			t.Errorf("%s: reduce %q, want max", name, c[name].Reduce)
		}
	}
}

// TestDriversProduceCatalogNames runs every built-in parser over every captured output of every
// driver and checks each name it returns is declared.
func TestDriversProduceCatalogNames(t *testing.T) {
	c := measure.Default()
	parsers := registry.Builtin()
	checked := 0
	for name, p := range parsers {
		files, err := filepath.Glob(filepath.Join("..", "parsers", name, "testdata", "*", "output.txt"))
		if err != nil || len(files) == 0 {
			t.Errorf("driver %s: no captured outputs (%v)", name, err)
			continue
		}
		for _, f := range files {
			values, err := parseFile(p.Parse, f)
			if err != nil {
				continue // an error case: no names
			}
			for n := range values {
				checked++
				if _, ok := c.Lookup(n); !ok {
					t.Errorf("driver %s (%s) produces %q, not in the catalog", name, f, n)
				}
			}
		}
	}
	for n := range (&loadgen.Report{}).Results() {
		checked++
		if _, ok := c.Lookup(n); !ok {
			t.Errorf("crank load produces %q, not in the catalog", n)
		}
	}
	if checked < 50 {
		t.Errorf("only %d names checked", checked)
	}
}

func parseFile(parse func(io.Reader) (map[string]float64, error), path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f)
}

// TestAgentNamesInCatalog: what the agent samples and the default counters' measurements.
func TestAgentNamesInCatalog(t *testing.T) {
	c := measure.Default()
	names := []string{measure.CPU, measure.CPURaw, measure.CPUGlobal, measure.CPUSteal, measure.WorkingSet, measure.PrivateMemory,
		measure.BuildTime, measure.StartTime}
	for _, s := range measure.DefaultCounters() {
		names = append(names, s.Measurement)
	}
	for _, n := range names {
		if _, ok := c.Lookup(n); !ok {
			t.Errorf("%q is not in the catalog", n)
		}
	}
}
