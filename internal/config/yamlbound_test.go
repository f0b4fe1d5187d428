package config

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// aliasBomb is the audit's file: 9 levels of 10 aliases each, ~550 bytes, 10^9 values expanded.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.Repeat(p+", ", 9)+p)
	}
	b.WriteString("jobs: *a9\n")
	return b.String()
}

// TestAliasBombRefused: the file took crank --dry-run past 1.5 GB in 7 s. Now it is refused at
// once, naming the file, whether read from disk or imported over http.
func TestAliasBombRefused(t *testing.T) { // not parallel: it measures the allocations
	bomb := aliasBomb()
	dir := t.TempDir()
	local := filepath.Join(dir, "bomb.yml")
	if err := os.WriteFile(local, []byte(bomb), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(bomb)) }))
	defer srv.Close()
	importer := filepath.Join(dir, "importer.yml")
	if err := os.WriteFile(importer, []byte("imports:\n  - "+srv.URL+"/bomb.yml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, name := range map[string]string{local: local, importer: srv.URL + "/bomb.yml"} {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := Load(context.Background(), []string{path}, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), name+": more than 100000 values once its aliases") {
			t.Errorf("%s: err = %v, want the expansion refused naming %s", path, err, name)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: %d MiB allocated before refusing", path, grew>>20)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: refused after %s", path, d)
		}
	}
}

// TestAliasesStillWork: ordinary anchors and merge keys are expanded as before.
func TestAliasesStillWork(t *testing.T) {
	t.Parallel()
	n, err := parseYAML([]byte("base: &b {x: 1, y: [1, 2]}\nuse:\n  <<: *b\n  y: [3]\nlist: [*b, *b]\n"), "ok.yml")
	if err != nil {
		t.Fatal(err)
	}
	if got := n.get("use").get("x"); got.isNull() {
		t.Errorf("merge key lost x: %+v", n.get("use"))
	}
	if l := n.get("list"); len(l.items) != 2 || l.items[1].get("y").isNull() {
		t.Errorf("list of aliases: %+v", l)
	}
}

// TestImportBombRefused: files that each import the next ten times made crank read 10^n files.
func TestImportBombRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 9 {
		body := "jobs: {a: {executable: x}}\n"
		if i < 8 {
			body = "imports: [" + strings.Repeat(fmt.Sprintf("f%d.yml, ", i+1), 9) + fmt.Sprintf("f%d.yml]\n", i+1)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yml", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	_, err := Load(context.Background(), []string{filepath.Join(dir, "f0.yml")}, quiet)
	if err == nil || !strings.Contains(err.Error(), "more than 1000 files read") {
		t.Errorf("err = %v, want the import bomb refused", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("refused after %s", d)
	}
}

// TestDeepFlowNestingBounded: 100,000 nested flow sequences ('[' 100,000 times, 200 KB) fail
// yaml.v3 at its depth bound, and crank then asked goccy/go-yaml where the syntax error was: its
// parser took 15 GB and 23 s on them. The depth error is said without the second parser.
func TestDeepFlowNestingBounded(t *testing.T) {
	data := []byte("a: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := parseYAML(data, "deep.yml")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "deep.yml") || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("error %v, want the depth refused naming the file", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
		t.Errorf("parsing 200 KB allocated %d MB, want under 256 MB", grew>>20)
	}
}

// TestLargeFileErrorLocatedCheaply: goccy/go-yaml, asked where yaml.v3's syntax error is, takes
// about 150 times a file's size: an 8 MB file of anchors with an error on its last line took crank
// to 1.6 GB. Past maxLocateBytes yaml.v3's own message (naming the line) is said.
func TestLargeFileErrorLocatedCheaply(t *testing.T) {
	data := []byte(strings.Repeat("- &a x\n", (MaxConfigBytes-16)/7) + " bad: : x\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := parseYAML(data, "big.yml")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "big.yml") {
		t.Errorf("error %v, want a syntax error naming the file", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 700<<20 {
		t.Errorf("parsing %d MB allocated %d MB, want under 700 MB", len(data)>>20, grew>>20)
	}
}
