package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// UnmarshalJSON reads an answer whose sample values JSON allows but a float64 cannot hold (1e999)
// with those values as +Inf or -Inf instead of failing: encoding/json refused the whole answer,
// and one agent's out-of-range number lost the run. The controller then reports such a figure
// as not measured (results.Finite). An answer without one costs one more scan of its bytes
// (10,000 samples: 20-30 ms before, 25-40 ms, on a loaded 2-core machine: BenchmarkDecodeSamples).
//
// An answer is counted before it is decoded: its bytes are bounded (Bounds.Measurements), but
// three bytes of JSON, {}, decode into a whole Measurement or Metadata, and 32 MiB of them took
// crank past 3.7 GB (of Metadata, 5.8 GB). An answer holding more than MaxSamples samples,
// MaxFigures metadata, MaxFigures figures not measured, or samples of more than MaxFigures names,
// is refused, naming what and the bound.
func (ms *Measurements) UnmarshalJSON(b []byte) error {
	if err := checkCounts(b); err != nil {
		return err
	}
	type plain Measurements
	err := json.Unmarshal(b, (*plain)(ms))
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) || te.Field != "measurements.value" {
		if err == nil {
			err = checkNames(ms.Measurements)
		}
		return err
	}
	var wide struct {
		plain
		Measurements []struct {
			Name      string      `json:"name"`
			Timestamp time.Time   `json:"timestamp"`
			Value     json.Number `json:"value"`
			Warmup    bool        `json:"warmup"`
			Cooldown  bool        `json:"cooldown"`
		} `json:"measurements"`
	}
	if err := json.Unmarshal(b, &wide); err != nil {
		return err
	}
	*ms = Measurements(wide.plain)
	ms.Measurements = make([]Measurement, len(wide.Measurements))
	for i, w := range wide.Measurements {
		v, err := 0.0, error(nil)
		if w.Value != "" {
			v, err = strconv.ParseFloat(string(w.Value), 64)
		}
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("measurement %q: value %s: %w", w.Name, w.Value, err)
		}
		ms.Measurements[i] = Measurement{Name: w.Name, Timestamp: w.Timestamp, Value: v, Warmup: w.Warmup, Cooldown: w.Cooldown}
	}
	return checkNames(ms.Measurements)
}

// checkNames refuses samples naming more than MaxFigures figures: each is a figure of its own
// in every summary and table (MaxSamples samples of as many names took crank past 300 MB).
func checkNames(samples []Measurement) error {
	names := map[string]struct{}{}
	for _, m := range samples {
		names[m.Name] = struct{}{}
		if len(names) > MaxFigures {
			return fmt.Errorf("samples naming more than %d figures, more than crank takes from an agent", MaxFigures)
		}
	}
	return nil
}

// The most an agent's answer of a job's measurements may hold: a 10-minute run sampled every
// second has about 50 samples a second, 30,000 in all, and a few hundred figures.
const (
	MaxSamples = 1 << 19 // 524,288
	MaxFigures = 1 << 14 // 16,384 metadata, names of samples, figures not measured
)

// checkCounts counts the samples, metadata and figures not measured of an answer before it is
// decoded: an error names the list and the bound. Every member whose name matches a list's (as
// encoding/json matches it: in any case) counts: a list given twice is decoded twice, the first
// then dropped, and {"measurements":[{},...],"measurements":[]} would otherwise count none.
func checkCounts(b []byte) error {
	var top struct {
		Metadata     counted `json:"metadata"`
		Measurements counted `json:"measurements"`
		NotMeasured  counted `json:"notMeasured"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		n    counted
		max  int
	}{{"measurements", top.Measurements, MaxSamples}, {"metadata", top.Metadata, MaxFigures}, {"notMeasured", top.NotMeasured, MaxFigures}} {
		if int(c.n) > c.max {
			return fmt.Errorf("%d %s, more than crank takes from an agent (%d)", c.n, c.name, c.max)
		}
	}
	return nil
}

// counted is the elements of every occurrence of a list in an answer, counted on the answer's
// own bytes (nothing copied, nothing decoded).
type counted int

func (c *counted) UnmarshalJSON(b []byte) error {
	*c += counted(elements(b))
	return nil
}

// elements counts the elements of a JSON array or the members of an object (raw is valid JSON,
// null or absent counts none): the commas at its first level, and one.
func elements(raw json.RawMessage) int {
	t := bytes.TrimSpace(raw)
	if len(t) < 2 || (t[0] != '[' && t[0] != '{') || len(bytes.TrimSpace(t[1:len(t)-1])) == 0 {
		return 0
	}
	n, depth, inString, escaped := 1, 0, false, false
	for _, c := range t {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 1:
			n++
		}
	}
	return n
}
