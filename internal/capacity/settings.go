package capacity

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Settings are a search's bounds and its steps' lengths, as crank capacity's flags and a
// scenario's `capacity:` section give them.
type Settings struct {
	Options
	// StepDuration and StepWarmup are each step's measured seconds and the warm-up before them.
	StepDuration, StepWarmup float64
}

// DefaultSettings are crank capacity's defaults.
func DefaultSettings() Settings {
	return Settings{Options: DefaultOptions(), StepDuration: 4, StepWarmup: 1}
}

// SettingNames are the settings Set knows, by crank capacity's flag names; a scenario's section
// spells them in camel case (start-rate: startRate).
var SettingNames = []string{"precision", "start-rate", "max-steps", "max-time", "step-duration", "step-warmup"}

// Set parses one setting, named by its flag (SettingNames), from its text: the one parser of the
// flags and of the scenario's section. Its error says what the text should be (and s is left as
// it was); the caller says where the text came from (the flag, or the file and line).
func (s *Settings) Set(name, text string) error {
	text = strings.TrimSpace(text)
	number := func(min float64) (float64, error) {
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || v < min {
			return 0, fmt.Errorf("want a number of at least %g", min)
		}
		return v, nil
	}
	seconds := func(min float64) (float64, error) { // "4", "4s", "1500ms"
		if d, err := time.ParseDuration(text); err == nil && d.Seconds() >= min {
			return d.Seconds(), nil
		}
		if v, err := number(min); err == nil {
			return v, nil
		}
		return 0, fmt.Errorf("want seconds (a number, or a duration such as 4s) of at least %g", min)
	}
	var v float64
	var err error
	switch name {
	case "precision": // a percentage: "5" and "5%" are 5 %
		pct := strings.TrimSpace(strings.TrimSuffix(text, "%"))
		if v, err = strconv.ParseFloat(pct, 64); err != nil || v < 0.1 {
			return fmt.Errorf("want a percentage of at least 0.1 (5 or 5%%)")
		}
		s.Precision = v / 100
	case "start-rate":
		if v, err = number(1); err == nil {
			s.Start = v
		}
	case "max-steps":
		n, perr := strconv.Atoi(text)
		if perr != nil || n < 1 {
			return fmt.Errorf("want a whole number of at least 1")
		}
		s.MaxSteps = n
	case "max-time":
		d, perr := time.ParseDuration(text)
		if perr != nil || d <= 0 {
			return fmt.Errorf("want a duration such as 5m")
		}
		s.MaxTime = d
	case "step-duration":
		if v, err = seconds(1); err == nil {
			s.StepDuration = v
		}
	case "step-warmup":
		if v, err = seconds(0); err == nil {
			s.StepWarmup = v
		}
	default:
		return fmt.Errorf("not a setting of crank capacity (%s)", strings.Join(SettingNames, ", "))
	}
	return err
}
