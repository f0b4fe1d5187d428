//go:build measure

package e2e

import (
	"testing"
	"time"
)

// faultDeadline is how soon crank must fail, naming the agent, after the agent is lost: its
// AgentSilence (10 s) plus the last poll's timeout and the cleanup's short tries. While wrk loads
// the machine this is a wall-clock ceiling with 5 s of slack, so it is measured here; the gate's
// fault tests allow lostAgentBound (30 s).
const faultDeadline = 15 * time.Second

// TestFaultAgentKilledWithinDeadline: TestFaultAgentKilled, crank failing within faultDeadline.
func TestFaultAgentKilledWithinDeadline(t *testing.T) {
	lab := newNetLab(t)
	if took := testAgentKilled(t, lab); took > faultDeadline {
		t.Errorf("crank took %s to fail, want at most %s", took, faultDeadline)
	}
}

// TestFaultLinkCutWithinDeadline: TestFaultLinkCut, crank failing within faultDeadline.
func TestFaultLinkCutWithinDeadline(t *testing.T) {
	lab := newNetLab(t)
	if took := testLostLink(t, lab, lab.cut); took > faultDeadline {
		t.Errorf("crank took %s to fail, want at most %s", took, faultDeadline)
	}
}

// TestFaultPacketsDroppedWithinDeadline: TestFaultPacketsDropped, crank failing within
// faultDeadline.
func TestFaultPacketsDroppedWithinDeadline(t *testing.T) {
	lab := newNetLab(t)
	if took := testLostLink(t, lab, lab.drop); took > faultDeadline {
		t.Errorf("crank took %s to fail, want at most %s", took, faultDeadline)
	}
}
