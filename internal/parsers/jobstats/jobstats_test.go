package jobstats

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

func TestParse(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	out := `starting
#StartJobStatistics
{
  "Metadata": [
    {"source": "Host Process", "name": "benchmarks/cpu", "aggregate": "Max", "reduce": 3, "format": "n0",
     "longDescription": "CPU", "shortDescription": "Max CPU Usage (%)"}],
  "Measurements": [
    {"name": "benchmarks/cpu", "timestamp": "2024-02-23T13:01:56.12Z", "value": 98},
    {"name": "bombardier/raw", "timestamp": "2024-02-23T13:01:56.12Z", "value": "{\"a\":1}"}]
}
#EndJobStatistics
noise
#startjobstatistics
{"Measurements": [{"name": "my/result", "value": 1.5}]}
#endjobstatistics
`
	st, err := Parse(strings.NewReader(out), now)
	if err != nil {
		t.Fatal(err)
	}
	want := api.Metadata{Source: "Host Process", Name: "benchmarks/cpu", Aggregate: api.OpMax, Reduce: api.OpSum,
		Format: "n0", ShortDescription: "Max CPU Usage (%)", LongDescription: "CPU"}
	if len(st.Metadata) != 1 || st.Metadata[0] != want {
		t.Errorf("metadata = %+v", st.Metadata)
	}
	if len(st.Measurements) != 2 || st.Measurements[0].Value != 98 || st.Measurements[0].Timestamp.Year() != 2024 ||
		st.Measurements[1].Name != "my/result" || st.Measurements[1].Value != 1.5 || !st.Measurements[1].Timestamp.Equal(now) {
		t.Errorf("measurements = %+v", st.Measurements)
	}
	if st.Skipped != 1 {
		t.Errorf("skipped = %d, want 1", st.Skipped)
	}
	if _, err := Parse(strings.NewReader("#StartJobStatistics\n{not json\n#EndJobStatistics\n"), now); err == nil ||
		!strings.Contains(err.Error(), "output line 1") {
		t.Errorf("bad block: %v", err)
	}
}

// A name crank's wrappers give as "old;new" (bombardier/requests;http/requests) is kept under
// each, metadata and samples, as crank keeps the result under both names.
func TestParseCompoundNames(t *testing.T) {
	out := `#StartJobStatistics
{"Metadata": [{"name": "bombardier/requests;http/requests", "aggregate": "Max", "reduce": "Sum", "format": "n0", "shortDescription": "Requests"}],
 "Measurements": [{"name": "bombardier/requests;http/requests", "value": 1200}, {"name": ";", "value": 1}]}
#EndJobStatistics`
	st, err := Parse(strings.NewReader(out), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range st.Metadata {
		if m.Reduce != api.OpSum || m.ShortDescription != "Requests" {
			t.Errorf("metadata %+v", m)
		}
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "bombardier/requests,http/requests" {
		t.Errorf("metadata names %v", names)
	}
	names = nil
	for _, m := range st.Measurements {
		names = append(names, fmt.Sprint(m.Name, "=", m.Value))
	}
	if strings.Join(names, ",") != "bombardier/requests=1200,http/requests=1200,;=1" {
		t.Errorf("measurements %v", names)
	}
}
