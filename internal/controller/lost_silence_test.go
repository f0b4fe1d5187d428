package controller

import (
	"testing"
	"time"
)

// TestEmbeddedAgentSilence: the agent inside crank may go unheard for EmbeddedAgentSilence (a
// starved machine, not a lost agent); another agent for AgentSilence; a split load's generator
// for GeneratorSilence, embedded or not.
func TestEmbeddedAgentSilence(t *testing.T) {
	c := &Controller{opts: Options{AgentSilence: 10 * time.Second, GeneratorSilence: 3 * time.Second}, embeddedURL: "http://127.0.0.1:5010"}
	for _, tc := range []struct {
		in   *instance
		want time.Duration
	}{
		{&instance{url: "http://127.0.0.1:5010"}, EmbeddedAgentSilence},
		{&instance{url: "http://10.40.0.11:5010"}, 10 * time.Second},
		{&instance{url: "http://127.0.0.1:5010", share: &Share{}}, 3 * time.Second},
	} {
		if got := c.silenceOf(tc.in); got != tc.want {
			t.Errorf("%s (split %v): %s, want %s", tc.in.url, tc.in.share != nil, got, tc.want)
		}
	}
	if got := (&Controller{opts: Options{AgentSilence: 10 * time.Second}}).silenceOf(&instance{url: ""}); got != 10*time.Second {
		t.Errorf("no embedded agent started: %s, want AgentSilence", got)
	}
}

// TestPollTimeout: a poll waits half the silence, never past the silence's end, and at least
// minPollTimeout: two instances on one agent whose packets are dropped make the run fail about
// when the silence ends (TestFaultPacketsDroppedWithinDeadline failed at 22 s of a 10 s silence
// when each poll and each live read of them waited its own 5 s).
func TestPollTimeout(t *testing.T) {
	s := 10 * time.Second
	for _, tc := range []struct{ silent, want time.Duration }{
		{0, 5 * time.Second},
		{4 * time.Second, 5 * time.Second},
		{7 * time.Second, 3 * time.Second},
		{9900 * time.Millisecond, minPollTimeout},
		{time.Hour, minPollTimeout},
	} {
		if got := pollTimeout(s, tc.silent); got != tc.want {
			t.Errorf("silent %s of %s: %s, want %s", tc.silent, s, got, tc.want)
		}
	}
}
