package cli

import (
	"bytes"
	"context"
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
