package config

import (
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestApportion(t *testing.T) {
	cases := []struct {
		total   int
		weights []float64
		want    []int
	}{
		{30000, []float64{1, 1, 1}, []int{10000, 10000, 10000}},
		{32, []float64{1, 1, 1}, []int{11, 11, 10}},
		{100, []float64{1, 2, 1}, []int{25, 50, 25}},
		{10, []float64{1, 2}, []int{3, 7}},
		{0, []float64{1, 1}, []int{0, 0}},
	}
	for _, c := range cases {
		got, err := Apportion(c.total, c.weights)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Apportion(%d, %v) = %v, %v; want %v", c.total, c.weights, got, err, c.want)
		}
	}
	if _, err := Apportion(2, []float64{1, 1, 1}); err == nil || !strings.Contains(err.Error(), "endpoint 3") {
		t.Errorf("2 across 3: %v", err)
	}
}

const splitConfig = `
jobs:
  gen:
    executable: crank
    waitForExit: true
    variables: { rate: 30000, connections: 32 }
    arguments: "load http://x:1/ -c {{connections}} --rate {{rate}}"
  app:
    executable: app
scenarios:
  s:
    application:
      job: app
      endpoints: [ "http://a:5010", "http://b:5010" ]
    load:
      job: gen
      endpoints: [ "http://l1:5010", "http://l2:5010", "http://l3:5010" ]
`

func resolveSplit(t *testing.T, extra string, vars map[string]string) (*Resolved, error) {
	t.Helper()
	dir := writeTree(t, map[string]string{"c.yml": splitConfig + extra})
	c, err := Load(context.Background(), []string{filepath.Join(dir, "c.yml")}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c.Resolve(Request{Scenario: "s", Variables: vars})
}

// TestSplit: a load on three endpoints gets a third of the rate and of the connections each,
// rendered into its job; the service keeps the totals; the application is not split.
func TestSplit(t *testing.T) {
	r, err := resolveSplit(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	app, load := r.Services[0], r.Services[1]
	if app.Shares != nil {
		t.Errorf("the application was split: %+v", app.Shares)
	}
	if len(load.Shares) != 3 || load.Job.Variables["rate"] != 30000 {
		t.Fatalf("load shares %+v, variables %v", load.Shares, load.Job.Variables)
	}
	wantConns := []int{11, 11, 10}
	for i, sh := range load.Shares {
		want := map[string]int{"rate": 10000, "connections": wantConns[i]}
		if sh.Endpoint != load.Endpoints[i] || !reflect.DeepEqual(sh.Variables, want) || sh.Weight != 1 {
			t.Errorf("share %d: %+v, want %v", i, sh, want)
		}
		args := "load http://x:1/ -c " + strconv.Itoa(wantConns[i]) + " --rate 10000"
		if sh.Job.Arguments != args || sh.Job.Variables["rate"] != 10000 {
			t.Errorf("share %d: arguments %q variables %v, want %q", i, sh.Job.Arguments, sh.Job.Variables, args)
		}
	}
	dry, err := r.DryRun()
	if err != nil || !strings.Contains(string(dry), `"endpoint": "http://l3:5010",
          "weight": 1,
          "variables": {
            "connections": 10,
            "rate": 10000
          },
          "arguments": "load http://x:1/ -c 10 --rate 10000"`) {
		t.Errorf("dry run (%v):\n%s", err, dry)
	}
	// the command line's total is split too
	r, err = resolveSplit(t, "", map[string]string{"rate": "3000"})
	if err != nil || r.Services[1].Shares[2].Variables["rate"] != 1000 {
		t.Errorf("--variable rate=3000: %v, %+v", err, r.Services[1].Shares)
	}
}

func TestSplitWeights(t *testing.T) {
	r, err := resolveSplit(t, "      weights: [ 1, 2, 1 ]\n", map[string]string{"rate": "4000"})
	if err != nil {
		t.Fatal(err)
	}
	var rates []int
	for _, sh := range r.Services[1].Shares {
		rates = append(rates, sh.Variables["rate"])
	}
	if !reflect.DeepEqual(rates, []int{1000, 2000, 1000}) {
		t.Errorf("rates %v", rates)
	}
	_, err = resolveSplit(t, "      weights: [ 1, 2 ]\n", nil)
	if err == nil || !strings.Contains(err.Error(), "c.yml:18") || !strings.Contains(err.Error(), "2 weights for 3 endpoints") {
		t.Errorf("two weights: %v", err)
	}
	_, err = resolveSplit(t, "      weights: [ 1, -2, 1 ]\n", nil)
	if err == nil || !strings.Contains(err.Error(), "weight -2: want a positive number") {
		t.Errorf("negative weight: %v", err)
	}
	_, err = resolveSplit(t, "", map[string]string{"connections": "2"})
	if err == nil || !strings.Contains(err.Error(), "variable connections: 2 across 3 endpoints") {
		t.Errorf("2 connections: %v", err)
	}
}
