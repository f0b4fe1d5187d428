package testutil

import (
	"fmt"
	"os"
	"testing"
)

// Missing reports a component the test needs but cannot find (a tool, a server, root). Under
// CI=true the test fails, since CI installs everything the tests need and a skip there would hide a
// missing install step; elsewhere it is skipped with the reason.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("missing under CI=true (make test-deps installs it): %s", msg)
	}
	t.Skip(msg)
}
