package pack

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// TestPackLeavesOutResultFiles: this run's outputs (a file, the .tmp beside it, a folder) and the
// files the ledger recorded are neither packed nor hashed; a recorded file edited since is source again.
func TestPackLeavesOutResultFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, "main.go", "package main")
	base, err := Pack(root, Exclude{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "out.json", "{}")
	write(t, root, "out.json.tmp", "{")
	write(t, root, "logs/app.build.log", "log")
	write(t, root, "earlier.json", "{}")
	ledger := Ledger(filepath.Join(t.TempDir(), "crankshaft", "written"))
	if err := ledger.Record(filepath.Join(root, "earlier.json"), filepath.Join(root, "missing.json")); err != nil {
		t.Fatal(err)
	}
	written, err := ledger.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 1 {
		t.Fatalf("ledger holds %v, want earlier.json only (missing.json does not exist)", written)
	}
	ex := Exclude{Paths: []string{filepath.Join(root, "out.json"), filepath.Join(root, "out.json.tmp"), filepath.Join(root, "logs")}, Written: written}
	p, err := Pack(root, ex)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, p.TarGz); !slices.Equal(got, []string{"main.go"}) || p.Hash != base.Hash {
		t.Fatalf("packed %v (hash equal to the source alone: %v), want main.go only", got, p.Hash == base.Hash)
	}
	// Edited since crank wrote it: the user's file now.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(root, "earlier.json"), later, later); err != nil {
		t.Fatal(err)
	}
	p, err = Pack(root, ex)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, p.TarGz); !slices.Equal(got, []string{"earlier.json", "main.go"}) {
		t.Errorf("packed %v after earlier.json changed, want it packed again", got)
	}
}

// TestLedgerStaysBounded: past maxLedgerLines the ledger keeps one line per file still as recorded.
func TestLedgerStaysBounded(t *testing.T) {
	dir := t.TempDir()
	ledger := Ledger(filepath.Join(t.TempDir(), "written"))
	kept := filepath.Join(dir, "kept.json")
	write(t, dir, "kept.json", "{}")
	write(t, dir, "gone.json", "{}")
	if err := ledger.Record(filepath.Join(dir, "gone.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gone.json")); err != nil {
		t.Fatal(err)
	}
	for range maxLedgerLines + 1 {
		if err := ledger.Record(kept); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(string(ledger))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 2 {
		t.Errorf("ledger has %d lines after %d records of one file, want it compacted", len(lines), maxLedgerLines+2)
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, " "+kept) {
			t.Errorf("ledger line %q: want only %s (gone.json was removed)", l, kept)
		}
	}
	if err := os.WriteFile(string(ledger), []byte("not a line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Read(); err == nil || !strings.Contains(err.Error(), string(ledger)+":1") {
		t.Errorf("a corrupt ledger: %v, want an error naming its file and line", err)
	}
}

// TestLedgerNotWrittenThroughALink: the ledger sits in a cache folder (a user's XDG_CACHE_HOME
// under root's crank, through sudo -E); a link planted at it had root append its lines to the file
// it pointed to (and its compaction went through a predictable written.tmp). Now it is written
// through safewrite: the link is refused naming the ledger, the target untouched.
func TestLedgerNotWrittenThroughALink(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "out.json", "{}")
	target := filepath.Join(dir, "target")
	write(t, dir, "target", "root's file\n")
	ledger := Ledger(filepath.Join(dir, "written"))
	if err := os.Symlink(target, string(ledger)); err != nil {
		t.Fatal(err)
	}
	err := ledger.Record(filepath.Join(dir, "out.json"))
	if !errors.Is(err, safewrite.ErrLink) || !strings.Contains(err.Error(), string(ledger)) {
		t.Errorf("Record through a link: %v, want safewrite.ErrLink naming %s", err, ledger)
	}
	if b, _ := os.ReadFile(target); string(b) != "root's file\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}
