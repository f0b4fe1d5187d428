package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigurationBombs: a few hundred bytes of configuration that would render gigabytes (a
// Liquid for doubling a string, three nested fors, an onConfigure doubling a string) are refused
// in seconds with an error naming the file, instead of crashing crank with "out of memory"
// (issue 25, 7).
func TestConfigurationBombs(t *testing.T) {
	for name, job := range map[string]string{
		"doubling": `arguments: '{% assign s = "xx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}'`,
		"nested":   `arguments: '{% for a in (1..1000) %}{% for b in (1..1000) %}{% for c in (1..1000) %}xxxxxxxx{% endfor %}{% endfor %}{% endfor %}'`,
		// A second audit of issue 25: capture and concat doubled around the bounded filters.
		"capture": `arguments: '{% assign s = "x" %}{% for i in (1..40) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}{{ s | size }}'`,
		"concat":  `arguments: '{% assign a = "x,x" | split: "," %}{% for i in (1..40) %}{% assign a = a | concat: a %}{% endfor %}{{ a | size }}'`,
		"script":  `onConfigure: 'var s = "x"; for (var i = 0; i < 40; i++) { s = s + s; } job.arguments = s;'`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bomb.yml")
			yml := "jobs:\n  app:\n    executable: ./app\n    " + job + "\nscenarios:\n  s:\n    app: {job: app}\n"
			if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cfg, err := Load(t.Context(), []string{path}, LoadOptions{})
			if err == nil {
				_, err = cfg.Resolve(Request{Scenario: "s"})
			}
			if err == nil || !strings.Contains(err.Error(), "bomb.yml") {
				t.Errorf("error %v, want a refusal naming bomb.yml", err)
			}
			if took := time.Since(start); took > 15*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// TestBoundedCaptureAndConcat: the bounded capture (renamed by the pre-pass) and concat render as
// Liquid's own, whitespace control included.
func TestBoundedCaptureAndConcat(t *testing.T) {
	for src, want := range map[string]string{
		`{%- capture x -%} a{{b}} {%- endcapture -%}[{{x}}]{% capture y %}{{ x | append: "!" }}{% endcapture %}{{ y }}`: "[aB]aB!",
		`{% assign a = "1,2" | split: "," %}{{ a | concat: a | join: "-" }}`:                                            "1-2-1-2",
	} {
		got, err := render(newEngine(), src, map[string]any{"b": "B"})
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", src, got, err, want)
		}
	}
}

// TestTemplateEnginePanicIsAnError: an integer past int64 in an expression makes osteele/liquid
// panic; crank says which template it was and goes on, instead of crashing with a stack trace.
func TestTemplateEnginePanicIsAnError(t *testing.T) {
	got, err := render(newEngine(), "{{ 99999999999999999999 }}", nil)
	if err == nil || got != "" || !strings.Contains(err.Error(), "value out of range") {
		t.Errorf("render: %q, %v; want no output and the engine's error", got, err)
	}
}
