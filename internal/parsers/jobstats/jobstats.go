// Package jobstats reads crank's job statistics protocol from any job's output: a JSON object
// {"Metadata": [...], "Measurements": [...]} between a line holding #StartJobStatistics and a
// line holding #EndJobStatistics (markers matched ignoring case; the block may repeat). This is
// how crank's wrappers and a job's own code report custom results.
package jobstats

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

const (
	startMarker = "#startjobstatistics"
	endMarker   = "#endjobstatistics"
)

// Stats is what the blocks of one output declared and measured.
type Stats struct {
	Metadata     []api.Metadata
	Measurements []api.Measurement
	// Skipped counts measurements whose value is not a number (crank keeps those as text).
	Skipped int
}

type block struct {
	Metadata []struct {
		Source, Name, ShortDescription, LongDescription, Format string
		Aggregate, Reduce                                       operation
	}
	Measurements []struct {
		Name      string
		Timestamp time.Time
		Value     any
	}
}

// operation reads crank's Operation: its name ("Max") or its number (crank's enum order).
type operation api.Operation

var operations = []api.Operation{api.OpFirst, api.OpLast, api.OpAvg, api.OpSum, api.OpMedian, api.OpMax, api.OpMin,
	api.OpCount, "all", api.OpDelta}

func (o *operation) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var op api.Operation
	switch x := v.(type) {
	case float64:
		if int(x) < 0 || int(x) >= len(operations) {
			return fmt.Errorf("operation %v: want 0 to %d", x, len(operations)-1)
		}
		op = operations[int(x)]
	case string:
		op = api.Operation(strings.ToLower(x))
	}
	switch op {
	case api.OpFirst, api.OpLast, api.OpAvg, api.OpSum, api.OpMedian, api.OpMax, api.OpMin, api.OpCount, api.OpDelta:
	case "all": // every value, kept as a list by crank: the last one here
		op = api.OpLast
	default:
		op = api.OpMax
	}
	*o = operation(op)
	return nil
}

// Parse reads every statistics block of a job's output. A block that is not valid JSON is an
// error naming its first line.
func Parse(r io.Reader, now time.Time) (Stats, error) {
	var st Stats
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var cur *strings.Builder
	line, startLine := 0, 0
	for sc.Scan() {
		line++
		text := strings.ToLower(sc.Text())
		switch {
		case strings.Contains(text, startMarker):
			cur, startLine = &strings.Builder{}, line
		case strings.Contains(text, endMarker) && cur != nil:
			if err := st.add(cur.String(), now); err != nil {
				return st, fmt.Errorf("job statistics at output line %d: %w", startLine, err)
			}
			cur = nil
		case cur != nil:
			cur.WriteString(sc.Text())
			cur.WriteByte('\n')
		}
	}
	return st, sc.Err()
}

func (st *Stats) add(payload string, now time.Time) error {
	var b block
	if err := json.Unmarshal([]byte(payload), &b); err != nil {
		return err
	}
	for _, m := range b.Metadata {
		for _, name := range names(m.Name) {
			st.Metadata = append(st.Metadata, api.Metadata{Source: m.Source, Name: name, Aggregate: api.Operation(m.Aggregate),
				Reduce: api.Operation(m.Reduce), Format: m.Format, ShortDescription: m.ShortDescription, LongDescription: m.LongDescription})
		}
	}
	for _, m := range b.Measurements {
		v, ok := m.Value.(float64)
		if !ok {
			st.Skipped++
			continue
		}
		at := m.Timestamp
		if at.IsZero() {
			at = now
		}
		for _, name := range names(m.Name) {
			st.Measurements = append(st.Measurements, api.Measurement{Name: name, Timestamp: at, Value: v})
		}
	}
	return nil
}

// names are the names a measurement is reported under: crank's wrappers name a value they report
// under an old and a new name "bombardier/requests;http/requests", and crank keeps the value
// under each.
func names(name string) []string {
	var out []string
	for _, n := range strings.Split(name, ";") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return []string{name}
	}
	return out
}
