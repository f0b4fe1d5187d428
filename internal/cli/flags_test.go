package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRunFlags(t *testing.T) {
	env := map[string]string{"CRANK_AGENT_TOKEN": "s3cret"}
	f, err := parseRunFlags(strings.Fields(
		"--config a.yml --config=b.yml --scenario plaintext --profile local --variable duration=5 "+
			"--load.variables.connections 64 --application.environmentVariables GOGC=off --load.job bombardier "+
			"--json out.json --iterations 3 --property os=linux --dry-run -"), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.configs, ",") != "a.yml,b.yml" || f.scenario != "plaintext" || f.profiles[0] != "local" {
		t.Errorf("configs/scenario/profile: %+v", f)
	}
	if f.variables["duration"] != "5" || f.properties["os"] != "linux" || f.iterations != 3 || f.dryRun != "-" {
		t.Errorf("values: %+v", f)
	}
	want := [][2]string{{"load.variables.connections", "64"}, {"application.environmentVariables", "GOGC=off"}, {"load.job", "bombardier"}}
	if len(f.overrides) != 3 || f.overrides[0] != want[0] || f.overrides[1] != want[1] || f.overrides[2] != want[2] {
		t.Errorf("overrides: %v", f.overrides)
	}
	if f.agentToken != "s3cret" {
		t.Errorf("token from env: %q", f.agentToken)
	}
}

func TestParseRunFlagsErrors(t *testing.T) {
	none := func(string) string { return "" }
	for args, want := range map[string]string{
		"--scenario x":                                "--config is required",
		"--config a.yml":                              "--scenario is required",
		"--config a.yml --scenario x --bogus 1":       "unknown flag --bogus",
		"--config a.yml --scenario x --variable":      "needs a value",
		"--config a.yml --scenario x --variable nope": "want name=value",
		"--config a.yml --scenario x --iterations 0":  "at least 1",
		"stray": "unexpected argument",
	} {
		_, err := parseRunFlags(strings.Fields(args), none)
		var ue *usageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want usage error with %q", args, err, want)
		}
	}
}
