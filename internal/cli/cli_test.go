package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func dryRun(t *testing.T, lookPath func(string) (string, error), extra ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"--config", "../../scenarios/plaintext.yml", "--scenario", "plaintext", "--dry-run", "-"}, extra...)
	code := Run(context.Background(), State{Args: args, Stdout: &out, Stderr: &errb, LookPath: lookPath})
	return out.String(), errb.String(), code
}

func TestBuiltinLoadWhenWrkIsMissing(t *testing.T) {
	missing := func(string) (string, error) { return "", errors.New("not found") }
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }

	out, stderr, code := dryRun(t, missing)
	if code != 0 || !strings.Contains(out, `"job": "builtin"`) || strings.Contains(out, `"job": "wrk"`) {
		t.Fatalf("wrk missing: exit %d, dry run:\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "wrk is not installed") || !strings.Contains(stderr, "--load.job builtin") {
		t.Errorf("no notice of the swap: %q", stderr)
	}
	if out, _, _ := dryRun(t, found); !strings.Contains(out, `"job": "wrk"`) {
		t.Errorf("wrk installed: the load job changed:\n%s", out)
	}
	if out, _, _ := dryRun(t, missing, "--load.job", "bombardier"); !strings.Contains(out, `"job": "bombardier"`) {
		t.Errorf("an explicit --load.job was replaced:\n%s", out)
	}
}

func TestRunExitCodes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run(context.Background(), State{Args: []string{"--config", "nope.yml", "--scenario", "x"}, Stdout: &out, Stderr: &errb}); code != ExitBadInput || !strings.Contains(errb.String(), "nope.yml") {
		t.Errorf("missing config: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := Run(context.Background(), State{Args: []string{"version"}, Stdout: &out, Stderr: &errb}); code != ExitOK || !strings.Contains(out.String(), Version) {
		t.Errorf("version: exit %d, %q", code, out.String())
	}
	if code := Run(context.Background(), State{Args: nil, Stdout: &out, Stderr: &errb}); code != ExitBadInput {
		t.Errorf("no args: exit %d", code)
	}
}

func TestAgentTokenFileMissing(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"--config", "../../scenarios/plaintext.yml", "--scenario", "plaintext", "--agent-token-file", "/no/such/token"}
	if code := Run(context.Background(), State{Args: args, Stdout: &out, Stderr: &errb}); code != ExitBadInput ||
		!strings.Contains(errb.String(), "--agent-token-file") || !strings.Contains(errb.String(), "/no/such/token") {
		t.Errorf("missing token file: exit %d, %q", code, errb.String())
	}
}
