// Package parsertest runs a parsers.Parser over real captured tool output and compares what it
// returns with golden files. Each case is a folder under the package's testdata:
//
//	testdata/<case>/command.txt    how output.txt was captured (the tool's command line)
//	testdata/<case>/output.txt     the tool's combined stdout and stderr
//	testdata/<case>/expected.json  the golden result: {"measurements": {...}} or {"error": "..."}
//
// Run the package's tests with -update to rewrite expected.json from the parser, then review the
// diff by hand against output.txt.
package parsertest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
)

var update = flag.Bool("update", false, "rewrite testdata/*/expected.json from the parser's results")

// Golden is the content of a case's expected.json: the measurements of a successful parse, or the
// error text of a failed one.
type Golden struct {
	Measurements map[string]float64 `json:"measurements,omitempty"`
	Error        string             `json:"error,omitempty"`
}

// Run parses every case folder under dir with p and compares the result with its expected.json
// (or rewrites it with -update). It fails when dir holds no case, when a case lacks command.txt,
// and when a measurement name is not in the catalog.
func Run(t *testing.T, p parsers.Parser, dir string) {
	t.Helper()
	cases, err := filepath.Glob(filepath.Join(dir, "*", "output.txt"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases in %s (%v)", dir, err)
	}
	for _, out := range cases {
		caseDir := filepath.Dir(out)
		t.Run(filepath.Base(caseDir), func(t *testing.T) { runCase(t, p, caseDir) })
	}
}

func runCase(t *testing.T, p parsers.Parser, dir string) {
	if cmd, err := os.ReadFile(filepath.Join(dir, "command.txt")); err != nil || len(bytes.TrimSpace(cmd)) == 0 {
		t.Errorf("%s: command.txt missing or empty (say how output.txt was captured)", dir)
	}
	got := Parse(t, p, filepath.Join(dir, "output.txt"))
	golden := filepath.Join(dir, "expected.json")
	if *update {
		write(t, golden, got)
		return
	}
	want := read(t, golden)
	if got.Error != want.Error {
		t.Errorf("error:\n got %q\nwant %q", got.Error, want.Error)
	}
	Compare(t, got.Measurements, want.Measurements)
}

// Parse runs p over the file at path and returns the result in golden form. It checks that every
// measurement name is in the catalog.
func Parse(t *testing.T, p parsers.Parser, path string) Golden {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	values, err := p.Parse(f)
	if err != nil {
		return Golden{Error: err.Error()}
	}
	catalog := measure.Default()
	for name := range values {
		if _, ok := catalog.Lookup(name); !ok {
			t.Errorf("measurement %q is not in the catalog", name)
		}
	}
	return Golden{Measurements: values}
}

// Compare fails the test for every name whose value differs or that only one map holds.
func Compare(t *testing.T, got, want map[string]float64) {
	t.Helper()
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: missing, want %v", name, w)
		} else if g != w {
			t.Errorf("%s = %v, want %v", name, g, w)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s = %v, not expected", name, g)
		}
	}
}

func read(t *testing.T, path string) Golden {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	var g Golden
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

func write(t *testing.T, path string, g Golden) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Values parses each case's testdata/<case>/output.txt and compares it with values read by hand
// from that output (so a careless -update cannot change them unnoticed).
func Values(t *testing.T, p parsers.Parser, cases map[string]map[string]float64) {
	t.Helper()
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			got := Parse(t, p, filepath.Join("testdata", name, "output.txt"))
			if got.Error != "" {
				t.Fatalf("Parse: %s", got.Error)
			}
			Compare(t, got.Measurements, want)
		})
	}
}

// Errors checks that each case's output fails to parse with exactly the given message.
func Errors(t *testing.T, p parsers.Parser, cases map[string]string) {
	t.Helper()
	for name, want := range cases {
		got := Parse(t, p, filepath.Join("testdata", name, "output.txt"))
		if got.Error != want {
			t.Errorf("%s: error %q, want %q", name, got.Error, want)
		}
	}
}
