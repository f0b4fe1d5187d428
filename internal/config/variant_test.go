package config

import (
	"reflect"
	"testing"
)

// TestVariant: only the variables a run sets to something else than the scenario's default make
// its variant; ports never do.
func TestVariant(t *testing.T) {
	cfg := loadShipped(t)
	for _, c := range []struct {
		name string
		req  Request
		want map[string]string
	}{
		{"nothing set", Request{}, nil},
		{"default value", Request{Variables: map[string]string{"dispatch": "inline"}}, nil},
		{"ports only", Request{Variables: map[string]string{"serverPort": "7000", "metricsPort": "7001"}}, nil},
		{"two knobs", Request{Variables: map[string]string{"dispatch": "partitioned", "partitions": "4", "serverPort": "7000"}},
			map[string]string{"dispatch": "partitioned", "partitions": "4"}},
		{"service override", Request{Overrides: []Override{{Service: "load", Path: "variables.connections", Value: "64"}}},
			map[string]string{"connections": "64"}},
		{"a JSON variable", Request{JSONVariables: map[string]any{"partitions": 8.0}}, map[string]string{"partitions": "8"}},
		{"profile's value", Request{Profiles: []string{"local"}, Variables: map[string]string{"dispatch": "inline"}}, nil},
	} {
		c.req.Scenario = "plaintext"
		res, err := cfg.Resolve(c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := cfg.Variant(c.req, res); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: variant %v, want %v", c.name, got, c.want)
		}
		// The defaults come from res's own resolution: a config with no scenario at all (which
		// could not resolve anything again) tells the same variant.
		if got := (&Config{}).Variant(c.req, res); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: from the resolution alone, variant %v, want %v", c.name, got, c.want)
		}
	}
}
