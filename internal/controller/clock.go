package controller

import (
	"fmt"
	"math"
	"time"
)

// clockWarn is the clock offset beyond which an agent's clock is said to be off, not only logged:
// machines kept by NTP agree within milliseconds, and an agent an hour or 73 years off (an
// unset clock, or an agent that lies) was corrected silently.
const clockWarn = time.Minute

// clockSlack is added to half the round trip before an agent's clock offset is taken as real:
// below it the offset is measurement noise (the agent's answer takes time to build).
const clockSlack = 10 * time.Millisecond

// clockOffset estimates an agent's clock minus the controller's from one request sent at sent,
// answered at received, that the agent stamped at agentTime (taken at the midpoint of the round
// trip). An offset within half the round trip plus clockSlack is 0, as is an agent that sent no time.
func clockOffset(sent, received, agentTime time.Time) time.Duration {
	if agentTime.IsZero() {
		return 0
	}
	rtt := received.Sub(sent)
	off := agentTime.Sub(sent.Add(rtt / 2))
	if off.Abs() <= rtt/2+clockSlack {
		return 0
	}
	return off
}

// clockNote says what crank does with an agent's clock offset: "" within clockWarn, a warning
// beyond it, and an error when the offset is beyond what a time.Duration holds (about 292 years:
// the subtraction saturates, so the correction would be wrong).
func clockNote(url string, offset time.Duration, agentTime time.Time) (string, error) {
	switch {
	case offset == math.MaxInt64 || offset == math.MinInt64:
		return "", fmt.Errorf("agent %s: its clock says %s, too far from crank's to correct its times: set its clock", url, agentTime.UTC().Format(time.RFC3339))
	case offset.Abs() > clockWarn:
		side := "ahead of"
		if offset < 0 {
			side = "behind"
		}
		return fmt.Sprintf("warning: agent %s: its clock is %s %s crank's (it says %s): its times are moved onto crank's clock (environment.clockOffsetMs); set its clock (NTP)",
			url, offset.Abs().Round(time.Second), side, agentTime.UTC().Format(time.RFC3339)), nil
	}
	return "", nil
}

// toLocal puts the instance's measurements and measured start on the controller's clock, so
// that every timeline of a run, from every agent, shares one clock.
func (in *instance) toLocal() {
	if in.clockOffset == 0 {
		return
	}
	for i := range in.measured.Measurements {
		in.measured.Measurements[i].Timestamp = in.measured.Measurements[i].Timestamp.Add(-in.clockOffset)
	}
}

// measuredStartLocal is the instance's measured start on the controller's clock, if it has one.
func (in *instance) measuredStartLocal() (time.Time, bool) {
	if in.status.MeasuredStart == nil {
		return time.Time{}, false
	}
	return in.status.MeasuredStart.Add(-in.clockOffset), true
}

// measuredEndLocal is when the instance's measured run ended, on the controller's clock, if it has.
func (in *instance) measuredEndLocal() (time.Time, bool) {
	if in.status.MeasuredEnd == nil {
		return time.Time{}, false
	}
	return in.status.MeasuredEnd.Add(-in.clockOffset), true
}
