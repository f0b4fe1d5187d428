//go:build measure

package e2e

import (
	"testing"
	"time"
)

// TestSeveralLoadAgentsStartTogether: TestSeveralLoadAgents's load and load2, their first CPU
// samples within 1 s of each other (the gate checks that their runs overlap): how closely crank
// starts two services on two agents.
func TestSeveralLoadAgentsStartTogether(t *testing.T) {
	common, a, _ := severalLoads(t)
	l1, l2 := twoLoadsRun(t, common, a)
	s1, s2 := firstSample(l1.Measurements[0], "benchmarks/cpu"), firstSample(l2.Measurements[0], "benchmarks/cpu")
	if s1.IsZero() || s2.IsZero() || s1.Sub(s2).Abs() > time.Second {
		t.Errorf("load and load2 did not start together: first samples at %s and %s", s1, s2)
	}
	t.Logf("starts %s apart", s1.Sub(s2).Abs())
}
