package profiler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Probe says which: perf missing, or perf there and refused.
func TestProbeSaysWhich(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := Probe(context.Background()); err == nil || !strings.Contains(err.Error(), "perf is missing") {
		t.Errorf("without perf: %v", err)
	}
	dir := t.TempDir()
	fake := "#!/bin/sh\necho 'Error: Access to performance monitoring and observability operations is limited.' >&2\nexit 255\n"
	if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	err := Probe(context.Background())
	if err == nil || !strings.Contains(err.Error(), "perf is not permitted") || !strings.Contains(err.Error(), "Access to performance monitoring") {
		t.Errorf("perf refused: %v", err)
	}
}

func TestParseCollectArguments(t *testing.T) {
	a, err := ParseCollectArguments("frequency=499; callGraph=dwarf")
	if err != nil || a.Frequency != 499 || a.CallGraph != "dwarf" {
		t.Errorf("%+v %v", a, err)
	}
	for _, bad := range []string{"frequency=0", "frequency=100000", "callGraph=lbr", "BufferSizeMB=1024", "-F 99"} {
		if _, err := ParseCollectArguments(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if a, err := ParseCollectArguments(""); err != nil || a != DefaultPerfArgs {
		t.Errorf("empty: %+v %v", a, err)
	}
}
