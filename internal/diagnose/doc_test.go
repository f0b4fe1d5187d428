package diagnose

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the thresholds table of docs/MEASUREMENTS.md")

const docPath = "../../docs/MEASUREMENTS.md"

// thresholdDocs says what each field of Thresholds means; a field missing here fails the test.
var thresholdDocs = map[string]string{
	"Saturated":          "share of the CPU a job can use at which it is saturated",
	"ErrorShare":         "share of failed requests (bad responses and socket errors) above which a run is error-bound",
	"LockWaitMin":        "ms/s of lock waiting (runtime-counter/lock-contention) below which contention is never high",
	"LockWaitPerCPU":     "ms of lock waiting per ms of the server's CPU time from which contention is high",
	"MonitorContentions": "monitor lock contentions per second (.NET) from which contention is high",
	"MachineFull":        "share of a shared machine's CPU (cpu/global) from which two of the run's jobs, each using at least 1 - Saturated of it, fill it together (machine-saturated)",
	"OtherShare":         "share of a machine's CPU used outside the run from which it is reported busy",
	"ManyConnections":    "connections from which underloaded no longer suggests more",
	"FewPipeline":        "pipeline depth below which underloaded suggests a deeper one",
	"BusyThread":         "CPU (% of a core) per load thread from which underloaded suggests more threads",
	"RateReached":        "share of a load's rate cap its RPS must reach for underloaded to blame the cap",
	"ProbeGain":          "RPS gain below which the probe at twice the connections turns underloaded into serialized",
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
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start, end := "<!-- thresholds:start -->\n", "<!-- thresholds:end -->"
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q block", docPath, strings.TrimSpace(start), end)
	}
	fresh := doc[:i+len(start)] + b.String() + doc[j:]
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
