package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Every metadata entry carries crank's description (the row label crank's compare shows); text
// results round-trip beside the numbers.
func TestJobResultJSONDescriptionsAndValues(t *testing.T) {
	r := &Result{JobResults: JobResults{Jobs: map[string]*JobResult{"load": {
		Results: map[string]float64{"http/rps/mean": 1000},
		Values:  map[string]any{"netSdkVersion": "8.0.100"},
		Metadata: []api.Metadata{
			{Name: "http/rps/mean", ShortDescription: "Requests/sec", Format: "n0"},
			{Name: "custom/thing", Format: "n2"},
		},
	}}}}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, r); err != nil {
		t.Fatal(err)
	}
	raw, err := readRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	md := raw["jobResults"].(map[string]any)["jobs"].(map[string]any)["load"].(map[string]any)["metadata"].([]any)
	for i, want := range []string{"Requests/sec", "custom/thing"} {
		if got := md[i].(map[string]any)["description"]; got != want {
			t.Errorf("metadata[%d].description = %v, want %q", i, got, want)
		}
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	j := back.JobResults.Jobs["load"]
	if j.Results["http/rps/mean"] != 1000 || j.Values["netSdkVersion"] != "8.0.100" || j.Metadata[0].ShortDescription != "Requests/sec" {
		t.Errorf("read back %+v", j)
	}
}

func readRaw(path string) (map[string]any, error) {
	b, err := readBytes(path)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

func readBytes(path string) ([]byte, error) { return os.ReadFile(path) }
