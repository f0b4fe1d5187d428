// Package sweep runs a scenario's variants, the product of a matrix of job keys and variables,
// in interleaved rounds, and compares them: per-metric tables with each variant's mean, spread
// and ratio to a baseline (with crank compare's significance tests), scaling over core counts, a
// chart, and one JSON file holding every variant's results, from which a sweep resumes.
package sweep

import (
	"fmt"
	"github.com/crankshaft/crankshaft/internal/rounds"
	"slices"
	"strings"
)

// Axis is one dimension of the matrix: a key and the values it takes, in order. A key with a dot
// is a job key of one service, as `--<service>.<path>` overrides name it ("application.cpuSet",
// "application.variables.dispatch"); a key without one is a variable of every job ("dispatch").
type Axis struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// ParseAxis reads `key=v1,v2,...`. Values holding commas themselves (cpuSet lists such as 0-1,4)
// are separated by "|" instead: `application.cpuSet=0|0-1,4`.
func ParseAxis(s string) (Axis, error) {
	key, list, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") {
		return Axis{}, fmt.Errorf("--matrix %q: want key=value1,value2 (key: a variable or <service>.<path>)", s)
	}
	sep := ","
	if strings.Contains(list, "|") {
		sep = "|"
	}
	a := Axis{Key: key}
	for v := range strings.SplitSeq(list, sep) {
		v = strings.TrimSpace(v)
		if v == "" {
			return Axis{}, fmt.Errorf("--matrix %q: empty value", s)
		}
		if slices.Contains(a.Values, v) {
			return Axis{}, fmt.Errorf("--matrix %q: value %q twice", s, v)
		}
		a.Values = append(a.Values, v)
	}
	return a, nil
}

// Service is the service an axis sets a job key of, "" for a variable.
func (a Axis) Service() string {
	svc, _, ok := strings.Cut(a.Key, ".")
	if !ok {
		return ""
	}
	return svc
}

// Path is the job key path under the service ("cpuSet"), or the variable name.
func (a Axis) Path() string {
	if _, path, ok := strings.Cut(a.Key, "."); ok {
		return path
	}
	return a.Key
}

// Short is the axis's name in variant names: the last segment of its key.
func (a Axis) Short() string { return a.Key[strings.LastIndex(a.Key, ".")+1:] }

// IsCores tells whether the axis sets a cpuSet, so its values are core counts.
func (a Axis) IsCores() bool { return strings.EqualFold(a.Short(), "cpuSet") }

// Setting is one axis's value in a variant.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Cell is one point of the matrix: a variant of the sweep (its name and settings).
type Cell struct {
	Name     string    `json:"name"` // "dispatch=shared,cpuSet=0-1"
	Settings []Setting `json:"settings"`
}

// CheckAxes refuses an empty matrix, a key given twice, or two keys with the same short name.
func CheckAxes(axes []Axis) error {
	if len(axes) == 0 {
		return fmt.Errorf("no --matrix given: a sweep needs at least one key=value1,value2")
	}
	seen := map[string]string{}
	for _, a := range axes {
		if prev, ok := seen[strings.ToLower(a.Short())]; ok {
			return fmt.Errorf("--matrix %s and %s: two axes named %q; sweep each key once", prev, a.Key, a.Short())
		}
		seen[strings.ToLower(a.Short())] = a.Key
	}
	return nil
}

// Product lists the matrix's variants: the first axis varies slowest.
func Product(axes []Axis) []Cell {
	out := []Cell{{}}
	for _, a := range axes {
		var next []Cell
		for _, v := range out {
			for _, val := range a.Values {
				next = append(next, Cell{Settings: append(slices.Clone(v.Settings), Setting{Key: a.Key, Value: val})})
			}
		}
		out = next
	}
	for i := range out {
		names := make([]string, len(axes))
		for j, a := range axes {
			names[j] = a.Short() + "=" + out[i].Settings[j].Value
		}
		out[i].Name = strings.Join(names, ",")
	}
	return out
}

// Order is the run order of n variants over count rounds, as variant indexes: ABBA rounds, the
// variants forward in odd rounds and backward in even ones, so a machine that drifts over the
// sweep weighs alike on every variant (rounds.Interleaved).
func Order(n, count int) []int { return rounds.Interleaved(n, count) }

// Value is the variant's value of the axis key, "" when it has none.
func (v Cell) Value(key string) string {
	for _, s := range v.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// Others names the variant by its settings other than key ("dispatch=shared"), "" when none.
func (v Cell) Others(axes []Axis, key string) string {
	var parts []string
	for i, a := range axes {
		if a.Key != key {
			parts = append(parts, a.Short()+"="+v.Settings[i].Value)
		}
	}
	return strings.Join(parts, ",")
}
