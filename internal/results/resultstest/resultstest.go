// Package resultstest holds test helpers for result files; it lives apart from testutil, which
// packages below results (api) use in their tests.
package resultstest

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/results"
)

// ReadResult reads a crank result file with the results package, failing the test on an error.
func ReadResult(t testing.TB, path string) *results.Result {
	t.Helper()
	res, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
