package config

import (
	"fmt"

	"github.com/crankshaft/crankshaft/internal/threshold"
)

// keyThresholds is a scenario service's pass/fail conditions on its results, as k6's thresholds:
//
//	load:
//	  job: wrk
//	  thresholds:
//	    http/requests/errors: "== 0"
//	    http/latency/99: ["< 5", "> 0"]
const keyThresholds = "thresholds"

// thresholds reads a service's thresholds: each metric maps to one condition or a list of them.
func thresholds(spec *node, svc, where string) ([]threshold.Threshold, []error) {
	n := spec.get(keyThresholds)
	if n.isNull() {
		return nil, nil
	}
	if !n.isMap() {
		return nil, []error{fmt.Errorf("%s: %s: thresholds must map result names to conditions such as \"< 5\"", n.pos, where)}
	}
	var out []threshold.Threshold
	var errs []error
	for _, p := range n.pairs {
		conds := []*node{p.value}
		if p.value.isList() {
			conds = p.value.items
		}
		for _, c := range conds {
			text, ok := c.str()
			if !ok {
				errs = append(errs, fmt.Errorf("%s: %s: thresholds: %s: want a condition such as \"< 5\"", c.pos, where, p.key))
				continue
			}
			op, v, err := threshold.ParseCondition(text)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: thresholds: %s: %w", c.pos, where, p.key, err))
				continue
			}
			out = append(out, threshold.Threshold{Service: svc, Metric: p.key, Op: op, Value: v,
				Source: p.keyPos.String()})
		}
	}
	return out, errs
}
