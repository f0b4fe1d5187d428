package script

import (
	"strings"
	"testing"
	"time"
)

func TestAggregates(t *testing.T) {
	e := New(nil)
	values := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for fn, want := range map[string]float64{"max": 10, "min": 1, "avg": 5.5, "sum": 55, "first": 5, "last": 6,
		"count": 10, "median": 5, "delta": 9, "percentile90": 9, "percentile99": 10, "percentile50": 5, "percentile75": 8} {
		got, err := e.Call(fn, values)
		if err != nil || got != want {
			t.Errorf("%s = %v (%v), want %v", fn, got, err, want)
		}
	}
	if got, _ := e.Call("all", []float64{1, 2}); len(got.([]any)) != 2 {
		t.Errorf("all = %v", got)
	}
	if _, err := e.Call("nope", values); err == nil || !strings.Contains(err.Error(), `no function "nope"`) {
		t.Errorf("an unknown function: %v", err)
	}
}

// Scripts see JSON-shaped values with keys found ignoring case, and their changes are kept.
func TestObjectsIgnoreCaseAndKeepChanges(t *testing.T) {
	var out strings.Builder
	e := New(&out)
	job := map[string]any{"variables": map[string]any{"duration": 15.0}, "timeout": 0.0, "list": []any{1.0}}
	e.Set("job", job)
	err := e.Run("test", `job.Timeout = Number(job.Variables.duration) + 10; job.variables.extra = {a: [1, "x"]};
		job.list.push(2); console.log("t", job.timeout)`)
	if err != nil {
		t.Fatal(err)
	}
	if job["timeout"] != 25.0 || len(job["list"].([]any)) != 2 {
		t.Errorf("job = %v", job)
	}
	extra := job["variables"].(map[string]any)["extra"].(map[string]any)
	if a := extra["a"].([]any); a[0] != 1.0 || a[1] != "x" {
		t.Errorf("extra = %#v", extra)
	}
	if out.String() != "t 25\n" {
		t.Errorf("console: %q", out.String())
	}
}

func TestErrorsNameTheScript(t *testing.T) {
	e := New(nil)
	for src, want := range map[string]string{
		`throw "bad value"`:       "main.yml:3 onConfigure[0]: bad value",
		`throw new Error("boom")`: "main.yml:3 onConfigure[0]: boom",
		`undefinedFunction()`:     "main.yml:3 onConfigure[0]: undefinedFunction is not defined",
		`var x = ;`:               "main.yml:3 onConfigure[0]: ",
	} {
		err := e.Run("main.yml:3 onConfigure[0]", src)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want prefix %q", src, err, want)
		}
	}
	e.timeout = 50 * time.Millisecond
	start := time.Now()
	if err := e.Run("loop", `while (true) {}`); err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("endless script: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the timeout did not stop the script")
	}
}

// TestConsoleCannotActOnTheTerminal: console.log from a script (a fetched configuration's, or one
// printing what a job measured) wrote escape sequences raw to crank's terminal: OSC 52 sets the
// clipboard, others set the title or clear the screen. They print as visible escapes; the
// script's own line breaks are kept.
func TestConsoleCannotActOnTheTerminal(t *testing.T) {
	var out strings.Builder
	e := New(&out)
	if err := e.Run("test", `console.log("\x1b]52;c;Y3VybCBldmlsfHNo\x07copied", "\x1b[2J"); console.warn("a\nb\u202e")`); err != nil {
		t.Fatal(err)
	}
	if want := `\x1b]52;c;Y3VybCBldmlsfHNo\x07copied \x1b[2J` + "\n" + "a\n" + `b\u202e` + "\n"; out.String() != want {
		t.Errorf("console wrote %q, want %q", out.String(), want)
	}
}
