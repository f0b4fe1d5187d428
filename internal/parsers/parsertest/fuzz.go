package parsertest

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/crankshaft/crankshaft/internal/parsers"
)

// Fuzz runs p.Parse on arbitrary output, seeded with every testdata/<case>/output.txt: it must
// not panic, and what it returns without an error must be finite numbers with names.
func Fuzz(f *testing.F, p parsers.Parser) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*", "output.txt"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, out []byte) {
		values, err := p.Parse(bytes.NewReader(out))
		if err != nil {
			return
		}
		for name, v := range values {
			if name == "" || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("Parse gave %q = %v", name, v)
			}
		}
	})
}
