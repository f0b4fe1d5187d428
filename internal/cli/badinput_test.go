package cli

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBadInputRefusedFirst: values that would fail only once the app is built and warmed up are
// refused at once with exit 2, naming the variable, flag or figure (with the one it resembles),
// and nothing starts: no upload, no job.
func TestBadInputRefusedFirst(t *testing.T) {
	plaintext := []string{"--config", "../../scenarios/plaintext.yml", "--scenario", "plaintext"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--variable", "duration=3s"}, "--variable duration=3s: want a number of seconds, without a unit (the jobs add it)"},
		{[]string{"--variable", "duration=abc"}, "--variable duration=abc: want a number of seconds"},
		{[]string{"--variable", "connections=lots"}, "--variable connections=lots: want a whole number"},
		{[]string{"--variable", "pipeline=1.5"}, "--variable pipeline=1.5: want a whole number"},
		{[]string{"--threshold", "load:http/latency/p99<5"}, "http/latency/p99 is not a figure crank knows; did you mean http/latency/99?"},
		{[]string{"--iteration", "3"}, "unknown flag --iteration (did you mean --iterations?"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		start := time.Now()
		code := Run(context.Background(), State{Args: append(append([]string{}, plaintext...), c.args...), Stdout: &out, Stderr: &errb})
		took := time.Since(start)
		if code != ExitBadInput || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit %d and %q", c.args, code, errb.String(), ExitBadInput, c.want)
		}
		if took > 2*time.Second || strings.Contains(errb.String(), "starting job") || strings.Contains(errb.String(), "uploading") {
			t.Errorf("%v: refused after %s, or something started:\n%s", c.args, took, errb.String())
		}
	}
}

// TestUnreadVariableSaidFirst: a variable no template reads is a warning before anything starts
// (here a dry run), and with --strict bad input (exit 2) before any job starts.
func TestUnreadVariableSaidFirst(t *testing.T) {
	plaintext := []string{"--config", "../../scenarios/plaintext.yml", "--scenario", "plaintext", "--profile", "local"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--load.variables.conections", "64"},
			`--load.variables.conections: the job of service "load" does not use conections (did you mean connections?)`},
		{[]string{"--variable", "duraton=5"}, "--variable duraton: no job of the scenario uses duraton (did you mean duration?)"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		args := append(append(slices.Clone(plaintext), c.args...), "--dry-run", "-")
		if code := Run(t.Context(), State{Args: args, Stdout: &out, Stderr: &errb}); code != ExitOK || !strings.Contains(errb.String(), "crank: warning: "+c.want+"\n") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 0 and the warning %q", c.args, code, errb.String(), c.want)
		}
		out.Reset()
		errb.Reset()
		start := time.Now()
		args = append(append(slices.Clone(plaintext), c.args...), "--strict")
		code := Run(t.Context(), State{Args: args, Stdout: &out, Stderr: &errb})
		if code != ExitBadInput || errb.String() != "crank: "+c.want+" (--strict)\n" {
			t.Errorf("%v --strict: exit %d, stderr:\n%s\nwant exit %d and only %q", c.args, code, errb.String(), ExitBadInput, c.want+" (--strict)")
		}
		if took := time.Since(start); took > 2*time.Second || out.Len() > 0 {
			t.Errorf("%v --strict: refused after %s, stdout %q", c.args, took, out.String())
		}
	}
	var out, errb bytes.Buffer
	args := append(slices.Clone(plaintext), "--load.variables.connections", "64", "--variable", "duration=5", "--strict", "--dry-run", "-")
	if code := Run(t.Context(), State{Args: args, Stdout: &out, Stderr: &errb}); code != ExitOK || strings.Contains(errb.String(), "warning") {
		t.Errorf("read variables: exit %d, stderr:\n%s", code, errb.String())
	}
}

// TestUnreadAfterWrkFallback: without wrk the built-in generator runs, and the warnings are its
// own: it reads no Lua script.
func TestUnreadAfterWrkFallback(t *testing.T) {
	var out, errb bytes.Buffer
	noWrk := func(string) (string, error) { return "", errors.New("not found") }
	args := []string{"--config", "../../scenarios/plaintext.yml", "--scenario", "plaintext", "--load.variables.script", "post.lua", "--dry-run", "-"}
	code := Run(t.Context(), State{Args: args, Stdout: &out, Stderr: &errb, LookPath: noWrk})
	want := "[load] wrk is not installed here: using the built-in load generator (--load.job builtin)\n" +
		"crank: warning: --load.variables.script: the job of service \"load\" does not use script\n"
	if code != ExitOK || errb.String() != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and\n%s", code, errb.String(), want)
	}
}
