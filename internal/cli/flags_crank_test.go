package cli

import (
	"github.com/crankshaft/crankshaft/internal/output"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/results"
)

// crank's short names and case-insensitive long names; overrides keep their case.
func TestCrankFlagSpellings(t *testing.T) {
	none := func(string) string { return "" }
	f, err := parseRunFlags([]string{"-c", "a.yml", "--Config", "b.yml", "-s", "plaintext", "-p", "os=linux", "-i", "2",
		"-j", "out.json", "-m", "0.5", "--VARIABLE", "x=1", "--variable-json", `list=[1,2]`, "--No-Measurements",
		"--no-metadata", "--csv", "out.csv", "--command-line-property", "--load.variables.presetHeaders", "json",
		"-d", "-", "--strict", "--script", "hello", "-v"}, none)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.configs, ",") != "a.yml,b.yml" || f.scenario != "plaintext" || f.properties["os"] != "linux" ||
		f.iterations != 2 || f.jsonOut != "out.json" || f.interval != 0.5 || f.variables["x"] != "1" || f.dryRun != "-" ||
		!f.strict || !f.verbose || f.scripts[0] != "hello" {
		t.Errorf("flags: %+v", f)
	}
	if l, ok := f.jsonVars["list"].([]any); !ok || len(l) != 2 || l[1] != 2.0 {
		t.Errorf("variable-json: %#v", f.jsonVars)
	}
	if !f.output.noMeasurements || !f.output.noMetadata || f.output.csv != "out.csv" || !f.output.commandLineProperty {
		t.Errorf("output: %+v", f.output)
	}
	if f.overrides[0] != [2]string{"load.variables.presetHeaders", "json"} {
		t.Errorf("override: %v", f.overrides)
	}
	want := "--config a.yml --config b.yml --scenario plaintext --iterations 2 --interval 0.5 --variable x=1 " +
		"--variable-json list=[1,2] --load.variables.presetHeaders json --strict --script hello"
	if got := strings.Join(f.output.commandLine, " "); got != want {
		t.Errorf("command line:\n got %s\nwant %s", got, want)
	}
	if j, err := parseRunFlags([]string{"--job", "a", "--job", "b", "--a.executable", "sh"}, none); err != nil || len(j.jobs) != 2 {
		t.Errorf("--job without --config or --scenario: %v %+v", err, j)
	}
	if _, err := parseRunFlags([]string{"-c", "a.yml", "-s", "x", "--job", "a"}, none); err == nil || !strings.Contains(err.Error(), "can't be used together") {
		t.Errorf("--scenario with --job: %v", err)
	}
	for flag, instead := range map[string]string{"--sql": "InfluxDB", "--es": "InfluxDB", "--table": "InfluxDB",
		"--index": "InfluxDB", "--auto-flush": "InfluxDB", "--relay": "--<service>.endpoints"} {
		_, err := parseRunFlags([]string{"--config", "a.yml", "--scenario", "s", flag, "x"}, none)
		if err == nil || !strings.Contains(err.Error(), "crank's "+flag+" is not supported") || !strings.Contains(err.Error(), instead) {
			t.Errorf("%s: %v; want it refused, pointing to %s", flag, err, instead)
		}
	}
	for _, args := range [][]string{{"--auto-flush"}, {"--cert-sni"}, {"--Cert-Path", "c.pfx"}, {"--mi-client-id", "x"}} {
		_, err := parseRunFlags(append([]string{"--config", "a.yml", "--scenario", "s"}, args...), none)
		if err == nil || !strings.Contains(err.Error(), "crank's --"+strings.ToLower(strings.TrimLeft(args[0], "-"))+" is not supported: ") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// crank's display and repetition flags, and its old -o/--output names of --json.
func TestCrankDisplayAndRepeatFlags(t *testing.T) {
	none := func(string) string { return "" }
	f, err := parseRunFlags([]string{"-c", "a.yml", "-s", "x", "--Chart", "--chart-type", "hex", "--chart-scale", "auto",
		"--QUIET", "-o", "o.json", "-i", "5", "-x", "1:2", "-xo", "load:http/rps/mean", "--repeat", "load"}, none)
	if err != nil {
		t.Fatal(err)
	}
	if !f.display.chart || f.display.chartType != "hex" || f.display.chartScale != "auto" || !f.display.quiet ||
		f.jsonOut != "o.json" || f.iterations != 5 || f.spread.repeat != "load" ||
		f.spread.exclude.Low != 1 || f.spread.exclude.High != 2 || f.spread.exclude.Service != "load" || f.spread.exclude.Result != "http/rps/mean" {
		t.Errorf("flags: %+v", f)
	}
	if f, err := parseRunFlags([]string{"-c", "a.yml", "-s", "x", "--output", "p.json", "--span", "00:01:30"}, none); err != nil ||
		f.jsonOut != "p.json" || f.spread.span != 90*time.Second {
		t.Errorf("--output, --span: %v %+v", err, f)
	}
	for args, want := range map[string]string{
		"--chart-type pie":    `--chart-type "pie": want bar or hex`,
		"--chart-scale log":   `--chart-scale "log": want off or auto`,
		"-i 2 --span 10s":     "--iterations and --span can't be used together",
		"-xo load:x":          "--exclude-order needs --exclude",
		"-i 3 -x 1":           "--exclude needs --exclude-order",
		"--span soon":         `--span "soon"`,
		"--variable-json a=[": "--variable-json a:",
	} {
		_, err := parseRunFlags(append([]string{"-c", "a.yml", "-s", "x"}, strings.Fields(args)...), none)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

// --csv appends a row per run under one header; --no-measurements, --no-metadata and
// --command-line-property change what is kept.
func TestOutputOptions(t *testing.T) {
	res := func() *results.Result {
		return &results.Result{Session: "s1", Description: "d", JobResults: results.JobResults{
			Properties: map[string]string{"os": "linux"},
			Jobs: map[string]*results.JobResult{"load": {
				Results:      map[string]float64{"http/rps/mean": 1234.5},
				Metadata:     []api.Metadata{{Name: "http/rps/mean"}},
				Measurements: [][]api.Measurement{{{Name: "http/rps/mean", Value: 1}}},
				Environment:  map[string]any{"cores": 2},
				Variables:    map[string]any{"connections": 32},
			}}}}
	}
	path := filepath.Join(t.TempDir(), "r.csv")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for range 2 {
		if err := output.WriteCSV(path, res(), now); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	want := "Session,DateTimeUtc,Description,load.http/rps/mean,load.cores,load.connections,os\n" +
		"s1,2026-01-02T03:04:05,d,1234.5,2,32,linux\n" + "s1,2026-01-02T03:04:05,d,1234.5,2,32,linux\n"
	if string(b) != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b, want)
	}
	o := outputFlags{noMeasurements: true, noMetadata: true, commandLineProperty: true, commandLine: []string{"--scenario", "x"}}
	r := res()
	o.apply(r)
	if j := r.JobResults.Jobs["load"]; j.Measurements != nil || j.Metadata != nil || r.JobResults.Properties["command-line"] != "crank --scenario x" {
		t.Errorf("applied: %+v %v", j, r.JobResults.Properties)
	}
}
