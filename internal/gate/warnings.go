package gate

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/results"
)

// machineKeys are the environment entries that identify a job's machine.
var machineKeys = []string{"hostname", "hardware", "cpuModel", "cores", "os", "arch"}

// warnings compares each result with the base (rs[0]) on what should be the same for the
// comparison to mean something: scenario, each service's job, variables and machine. It also
// names the results whose diagnosis found a busy machine.
func warnings(rs []*results.Result, names []string) []string {
	var out []string
	base := rs[0]
	for i, r := range rs {
		for _, d := range r.JobResults.Diagnostics {
			switch d.Kind {
			case diagnose.MachineBusy:
				out = append(out, fmt.Sprintf("%s ran on a busy machine: %s", names[i], d.Message))
			case diagnose.Unserved:
				out = append(out, fmt.Sprintf("%s measured something other than its application: %s", names[i], d.Message))
			}
		}
		if i == 0 {
			continue
		}
		pair := fmt.Sprintf("%s and %s", names[0], names[i])
		if base.Scenario != r.Scenario {
			out = append(out, fmt.Sprintf("%s ran different scenarios (%q, %q)", pair, base.Scenario, r.Scenario))
		}
		for _, svc := range serviceNames([]*results.Result{base, r}) {
			a, b := base.JobResults.Jobs[svc], r.JobResults.Jobs[svc]
			if a == nil || b == nil {
				continue
			}
			if ja, jb := a.Environment["job"], b.Environment["job"]; ja != nil && jb != nil && ja != jb {
				out = append(out, fmt.Sprintf("%s: %s ran different jobs (%v, %v)", svc, pair, ja, jb))
			}
			if d := differences(a.Variables, b.Variables, nil); len(d) > 0 {
				out = append(out, fmt.Sprintf("%s: %s differ in variables: %s", svc, pair, strings.Join(d, ", ")))
			}
			if d := differences(a.Environment, b.Environment, machineKeys); len(d) > 0 {
				out = append(out, fmt.Sprintf("%s: %s ran on different machines: %s", svc, pair, strings.Join(d, ", ")))
			}
		}
	}
	return out
}

// differences lists "key a -> b" for the keys (all of both maps when keys is nil) whose values
// differ; a key missing on one side is not a difference.
func differences(a, b map[string]any, keys []string) []string {
	if keys == nil {
		keys = slices.Sorted(maps.Keys(a))
	}
	var out []string
	for _, k := range keys {
		va, okA := a[k]
		vb, okB := b[k]
		if okA && okB && !reflect.DeepEqual(fmt.Sprint(va), fmt.Sprint(vb)) {
			out = append(out, fmt.Sprintf("%s %v -> %v", k, va, vb))
		}
	}
	return out
}

// unserved tells, for each result, whether its diagnosis was unserved.
func unserved(rs []*results.Result) []bool {
	out := make([]bool, len(rs))
	for i, r := range rs {
		out[i] = diagnosed(r, diagnose.Unserved)
	}
	return out
}

// busy tells whether a result's diagnosis found its machine busy.
func busy(rs []*results.Result) bool {
	return slices.ContainsFunc(rs, func(r *results.Result) bool { return diagnosed(r, diagnose.MachineBusy) })
}

// diagnosed tells whether a result's diagnosis includes kind.
func diagnosed(r *results.Result, kind string) bool {
	return slices.ContainsFunc(r.JobResults.Diagnostics, func(d results.Diagnostic) bool { return d.Kind == kind })
}
