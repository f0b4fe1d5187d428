package config

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A named source's relative localFolder and a relative buildFiles path resolve against the file
// that declares them, as source.localFolder does; URLs and folders are kept.
func TestSourcesResolveRelativePaths(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"main.yml": "imports: [jobs/app.yml]\nscenarios:\n  s:\n    app: {job: app}\n",
		"jobs/app.yml": `jobs:
  app:
    executable: ./app
    sources:
      lib: {localFolder: ../lib, destinationFolder: vendor/lib}
    buildFiles: ['../conf/*.json;conf', 'https://example.com/a/NuGet.Config']
`,
	})
	t.Chdir(dir)
	cfg, err := Load(context.Background(), []string{"main.yml"}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.Resolve(Request{Scenario: "s"})
	if err != nil {
		t.Fatal(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	j := r.Services[0].Job
	if len(j.Sources) != 1 || j.Sources[0].LocalFolder != filepath.Join(cwd, "lib") || j.Sources[0].Dest() != "vendor/lib" {
		t.Errorf("sources = %+v, want lib at %s into vendor/lib", j.Sources, filepath.Join(cwd, "lib"))
	}
	want := []string{filepath.Join(cwd, "conf", "*.json") + ";conf", "https://example.com/a/NuGet.Config"}
	if len(j.BuildFiles) != 2 || j.BuildFiles[0] != want[0] || j.BuildFiles[1] != want[1] {
		t.Errorf("buildFiles = %q, want %q", j.BuildFiles, want)
	}
}
