package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCliStaysThin: the command line keeps flags, usage and dispatch (issue 43): at most 1,500
// non-test lines and no function over 60 lines; a capability's logic goes in its own package.
func TestCliStaysThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(src), "\n")
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > 60 {
					t.Errorf("%s: %s is %d lines, more than 60", name, fn.Name.Name, n)
				}
			}
		}
	}
	if lines > 1500 {
		t.Errorf("internal/cli has %d non-test lines, more than 1,500: move a capability's logic to its package", lines)
	}
}
