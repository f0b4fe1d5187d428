package output

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/results"
)

// TestRegistry: every output crank has is registered under its name, an unknown name is refused
// naming them, and an output is written through the one interface.
func TestRegistry(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "capacity,compare,csv,influxdb,json,table" {
		t.Errorf("names %s", got)
	}
	if _, err := New("nosuch", Params{}); err == nil || !strings.Contains(err.Error(), "outputs: [capacity compare csv") {
		t.Errorf("unknown output: %v", err)
	}
	if _, err := New(Influx, Params{}); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("influxdb without a URL: %v, want ErrNotConfigured", err)
	}
	var out bytes.Buffer
	o, err := New(JSON, Params{Arg: "-", Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	res := &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"load": {Results: map[string]float64{"http/rps/mean": 5}}}}}
	if err := o.Write(context.Background(), Run{Result: res}); err != nil || !strings.Contains(out.String(), `"http/rps/mean": 5`) {
		t.Errorf("json: %v\n%s", err, out.String())
	}
}
