// Package threshold holds pass/fail conditions on a run's results, in the sense of k6's thresholds:
// "http/latency/99 < 5" per service, from a scenario's `thresholds:` or crank's --threshold.
package threshold

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/results"
)

// Threshold is a pass/fail condition on one result, as k6's thresholds: "http/latency/99 < 5".
// Service empty applies it to every service that reports the metric.
type Threshold struct {
	Service string
	Metric  string
	Op      string // <, <=, >, >=, ==, !=
	Value   float64
	Source  string // where it was set, for messages
}

// Condition is the threshold's test as written back: "< 5".
func (t Threshold) Condition() string {
	return t.Op + " " + strconv.FormatFloat(t.Value, 'g', -1, 64)
}

func (t Threshold) String() string {
	s := t.Metric + " " + t.Condition()
	if t.Service != "" {
		s = t.Service + ": " + s
	}
	return s
}

// operators, longest first so "<=" is not read as "<".
var operators = []string{"<=", ">=", "===", "==", "!=", "<", ">"}

// ParseCondition reads "< 5", "<=0.5", "== 0" (k6's operators; "===" is "==").
func ParseCondition(cond string) (op string, v float64, err error) {
	s := strings.TrimSpace(cond)
	for _, o := range operators {
		if rest, ok := strings.CutPrefix(s, o); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				return "", 0, fmt.Errorf("condition %q: %q is not a number", cond, strings.TrimSpace(rest))
			}
			if o == "===" {
				o = "=="
			}
			return o, v, nil
		}
	}
	return "", 0, fmt.Errorf("condition %q: want an operator (<, <=, >, >=, ==, !=) then a number, e.g. \"< 5\"", cond)
}

// Parse reads a command-line threshold: "[service:]metric OP number", e.g.
// "load:http/latency/99<5" or "http/requests/errors == 0".
func Parse(expr string) (Threshold, error) {
	i := strings.IndexAny(expr, "<>=!")
	if i <= 0 {
		return Threshold{}, fmt.Errorf("threshold %q: want [service:]metric OP number, e.g. 'load:http/latency/99<5'", expr)
	}
	t := Threshold{Source: "--threshold"}
	target := strings.TrimSpace(expr[:i])
	named := false
	if svc, metric, ok := strings.Cut(target, ":"); ok {
		t.Service, target, named = strings.TrimSpace(svc), metric, true
	}
	t.Metric = strings.TrimSpace(target)
	if t.Metric == "" || (named && t.Service == "") {
		return Threshold{}, fmt.Errorf("threshold %q: no metric before the operator, or an empty service before ':'", expr)
	}
	var err error
	if t.Op, t.Value, err = ParseCondition(expr[i:]); err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", expr, err)
	}
	return t, nil
}

func (t Threshold) holds(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Value
	case "<=":
		return v <= t.Value
	case ">":
		return v > t.Value
	case ">=":
		return v >= t.Value
	case "==":
		return v == t.Value
	case "!=":
		return v != t.Value
	}
	return false
}

// Check tests every threshold against the run's results. A threshold whose metric no
// service (or not the named service) reports fails: a gate that cannot see its metric must not pass.
func Check(res *results.Result, ths []Threshold) []results.ThresholdCheck {
	var out []results.ThresholdCheck
	for _, t := range ths {
		services := []string{t.Service}
		if t.Service == "" {
			services = nil
			for name, jr := range res.JobResults.Jobs {
				if _, ok := jr.Results[t.Metric]; ok {
					services = append(services, name)
				}
			}
			slices.Sort(services)
		}
		if len(services) == 0 {
			out = append(out, results.ThresholdCheck{Metric: t.Metric, Condition: t.Condition(), Source: t.Source})
			continue
		}
		for _, svc := range services {
			c := results.ThresholdCheck{Service: svc, Metric: t.Metric, Condition: t.Condition(), Source: t.Source}
			if jr, ok := res.JobResults.Jobs[svc]; ok && jr != nil {
				c.Value, c.Found = jr.Results[t.Metric]
			}
			c.Pass = c.Found && t.holds(c.Value)
			out = append(out, c)
		}
	}
	return out
}

// Line renders one check for the end of a run: "✓ load: http/latency/99 < 5 (1.23)".
func Line(c results.ThresholdCheck) string {
	mark, what := "pass", strings.TrimSuffix(strings.TrimRight(results.Format(c.Value, "n3"), "0"), ".")
	if !c.Pass {
		mark = "FAIL"
	}
	if !c.Found {
		what = "not reported"
	}
	target := c.Metric
	if c.Service != "" {
		target = c.Service + ": " + c.Metric
	}
	return fmt.Sprintf("%s  %s %s (%s; %s)", mark, target, c.Condition, what, c.Source)
}
