package gate

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/crankshaft/crankshaft/internal/results"
)

// FuzzCompareResults: any two files given to `crank compare` (or --compare), crank's output read
// back, are read, tabled and compared without a panic.
func FuzzCompareResults(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	seed := func(r *results.Result) []byte {
		b, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	a := seed(newResult(rng, 5, metricSpec{"http/rps/mean", 1000, 0.02}, metricSpec{"http/latency/99", 2, 0.1}))
	b := seed(newResult(rng, 5, metricSpec{"http/rps/mean", 900, 0.02}, metricSpec{"http/latency/99", 3, 0.1}))
	c := seed(newResult(rng, 0, metricSpec{"http/rps/mean", 1000, 0}))
	f.Add(a, b)
	f.Add(a, c)
	f.Add(c, []byte(`{"jobResults":{"jobs":{"load":{"results":{"http/rps/mean":0},"iterations":[{}]}}}}`))
	f.Fuzz(func(t *testing.T, base, head []byte) {
		dir := t.TempDir()
		var rs []*results.Result
		for i, data := range [][]byte{base, head} {
			path := filepath.Join(dir, []string{"base.json", "head.json"}[i])
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := results.ReadFile(path)
			if err != nil {
				return
			}
			_ = results.WriteTables(io.Discard, r, nil)
			rs = append(rs, r)
		}
		_, _ = CompareResults(rs[0], rs[1], CompareOptions{}, io.Discard)
	})
}
