package controller

import "time"

// clockSlack is added to half the round trip before an agent's clock offset is taken as real:
// below it the offset is measurement noise (the agent's answer takes time to build).
const clockSlack = 10 * time.Millisecond

// clockWarnOffset: an agent clock this far from the controller's is warned about, naming the agent
// and the offset (a machine synchronised by NTP is within milliseconds).
const clockWarnOffset = time.Minute

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
