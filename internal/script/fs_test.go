package script

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFS: crank's fs object reads, writes and tests files, relative paths from the working
// directory, names found ignoring case; empty names are null, nothing and false, as in crank.
func TestFS(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("in.txt", []byte("héllo\nworld"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	e := New(&out)
	e.Set("benchmarks", map[string]any{"properties": map[string]any{}})
	err := e.Run("s", `
		var text = fs.readFile("in.txt");
		benchmarks.properties.lines = String(text.split("\n").length);
		benchmarks.properties.first = text.split("\n")[0];
		fs.writeFile("out.txt", text.toUpperCase());
		fs.WriteFile("sub/n.txt", 42);
		fs.writeFile("empty.txt", null);
		fs.writeFile("in.txt", "replaced");
		console.log(fs.exists("out.txt"), fs.Exists("sub"), fs.exists("nope"), fs.exists(""), fs.exists(),
			fs.readFile("") === null, fs.ReadFile(undefined) === null, fs.writeFile("", "x") === undefined);`)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"out.txt": "HÉLLO\nWORLD", "sub/n.txt": "42", "empty.txt": "", "in.txt": "replaced"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if got := out.String(); got != "true false false false false true true true\n" {
		t.Errorf("console: %q", got)
	}
	if out, _ := e.rt.RunString(`benchmarks.properties.lines + "/" + benchmarks.properties.first`); out.String() != "2/héllo" {
		t.Errorf("properties: %v", out)
	}
}

// TestFSErrorsNameTheScript: a file that cannot be read or written throws; the error names the
// script, the call and the reason, and a script may catch it.
func TestFSErrorsNameTheScript(t *testing.T) {
	t.Chdir(t.TempDir())
	e := New(nil)
	for src, want := range map[string]string{
		`fs.readFile("missing.txt")`:         `f.yml onResultsCreated[1]: fs.readFile("missing.txt"): no such file or directory`,
		`fs.writeFile("no/such/dir.txt", 1)`: `f.yml onResultsCreated[1]: fs.writeFile("no/such/dir.txt"): no such file or directory`,
	} {
		if err := e.Run("f.yml onResultsCreated[1]", src); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
	var out strings.Builder
	e = New(&out)
	if err := e.Run("c", `try { fs.readFile("missing.txt") } catch (e) { console.log("caught", e.message) }`); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), `caught fs.readFile("missing.txt")`) {
		t.Errorf("console: %q", out.String())
	}
}
