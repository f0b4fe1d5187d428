package capacity

import (
	"strings"
	"testing"
	"time"
)

// TestSettingsSet: each setting's text, as a flag or a scenario key gives it; a refused text
// leaves the settings as they were.
func TestSettingsSet(t *testing.T) {
	s := DefaultSettings()
	for _, c := range [][2]string{{"precision", "2.5%"}, {"start-rate", "1500"}, {"max-steps", "9"}, {"max-time", "2m"},
		{"step-duration", " 3s "}, {"step-warmup", "0"}} {
		if err := s.Set(c[0], c[1]); err != nil {
			t.Fatalf("%s %q: %v", c[0], c[1], err)
		}
	}
	want := Settings{Options: Options{Start: 1500, MinRate: 10, Precision: 0.025, MaxSteps: 9, MaxTime: 2 * time.Minute, Confirm: true},
		StepDuration: 3, StepWarmup: 0}
	if s != want {
		t.Errorf("settings %+v, want %+v", s, want)
	}
	for _, c := range [][3]string{{"precision", "0.05", "at least 0.1"}, {"start-rate", "x", "at least 1"}, {"max-steps", "0", "at least 1"},
		{"max-time", "10", "a duration such as 5m"}, {"step-duration", "0.5", "at least 1"}, {"step-warmup", "-1", "at least 0"},
		{"start-rate", "50%", "at least 1"}, {"max-steps", "3.7", "whole number"}, {"step-duration", "500ms", "at least 1"},
		{"steps", "3", "not a setting of crank capacity (precision, start-rate"}} {
		if err := s.Set(c[0], c[1]); err == nil || !strings.Contains(err.Error(), c[2]) {
			t.Errorf("%s %q: %v, want %q", c[0], c[1], err, c[2])
		}
	}
	if s != want {
		t.Errorf("after refused texts %+v, want %+v unchanged", s, want)
	}
}
