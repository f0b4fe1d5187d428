package bisect

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/pack"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// gitRepo makes a repository in a new folder and returns it with a function that commits the
// work tree as it is then.
func gitRepo(t *testing.T) (string, func(msg string) Commit) {
	t.Helper()
	dir := t.TempDir()
	git := testutil.Git(t, dir)
	git("init", "--quiet", "-b", "main")
	return dir, func(msg string) Commit {
		git("add", "-A")
		git("commit", "--quiet", "-m", msg)
		return Commit{SHA: git("rev-parse", "HEAD"), Subject: msg}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRevisionIsNeverAnOption (issue 41, MEDIUM 10): `--good '--output=/p'` was read by git log as
// its --output option and wrote the file; now it is refused naming the revision, and nothing is
// written.
func TestRevisionIsNeverAnOption(t *testing.T) {
	dir, commit := gitRepo(t)
	write(t, filepath.Join(dir, "a.txt"), "a")
	c := commit("first")
	out := filepath.Join(t.TempDir(), "p")
	r := Repo{Dir: dir}
	_, err := r.Resolve(context.Background(), "--output="+out)
	if err == nil || !strings.Contains(err.Error(), `revision "--output=`+out+`": a revision does not start with "-"`) {
		t.Errorf("Resolve(--output=...): %v, want it refused naming the revision", err)
	}
	if written, _ := filepath.Glob(out + "*"); len(written) > 0 {
		t.Errorf("git wrote %v", written)
	}
	if got, err := r.Resolve(context.Background(), "main"); err != nil || got != c {
		t.Errorf("Resolve(main) = %+v, %v, want %+v", got, err, c)
	}
}

// TestExportedFolderConfinedToTheRepository (issue 41, MEDIUM 10): a commit that turns a parent of
// source.localFolder (src) into a link to a folder outside the repository does not make crank
// pack that folder: Folder refuses the link, naming it; the commit before it packs as ever.
func TestExportedFolderConfinedToTheRepository(t *testing.T) {
	dir, commit := gitRepo(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "app", "secret.txt"), "outside the repository")
	write(t, filepath.Join(dir, "src", "app", "main.go"), "package main")
	good := commit("app")
	if err := os.RemoveAll(filepath.Join(dir, "src")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "src")); err != nil {
		t.Fatal(err)
	}
	bad := commit("src is a link")
	r := Repo{Dir: dir}
	for _, c := range []struct {
		c    Commit
		want string
	}{{good, ""}, {bad, "src is a symbolic link in this commit: bisect packs only folders inside the repository"}} {
		tree := t.TempDir()
		if err := r.Export(context.Background(), c.c, tree); err != nil {
			t.Fatal(err)
		}
		folder, err := Folder(tree, filepath.Join("src", "app"))
		if c.want != "" {
			if err == nil || err.Error() != c.want {
				t.Errorf("%s: Folder = %q, %v; want %q", c.c.Subject, folder, err, c.want)
			}
			// What crank packed before: the folder outside, through the link.
			if pk, err := pack.Pack(filepath.Join(tree, "src", "app"), pack.Exclude{}); err != nil || pk.Files != 1 {
				t.Errorf("the test's premise: packing through the link gave %+v, %v; want the outside file", pk, err)
			}
			continue
		}
		pk, err := pack.Pack(folder, pack.Exclude{})
		if err != nil || pk.Files != 1 {
			t.Errorf("%s: packed %+v, %v; want its one file", c.c.Subject, pk, err)
		}
	}
	for _, rel := range []string{"src/app/main.go", "nope"} {
		if _, err := Folder(t.TempDir(), rel); err == nil {
			t.Errorf("Folder(%s) in an empty tree: no error", rel)
		}
	}
}

// TestDirty: a work tree as committed is clean; a changed file, or a new one git does not ignore,
// makes it dirty (what make bench marks "+dirty" beside the commit it measured).
func TestDirty(t *testing.T) {
	dir, commit := gitRepo(t)
	write(t, filepath.Join(dir, "a.txt"), "a")
	commit("first")
	r := Repo{Dir: dir}
	for _, step := range []struct {
		what string
		do   func()
		want bool
	}{
		{"as committed", func() {}, false},
		{"a.txt changed", func() { write(t, filepath.Join(dir, "a.txt"), "b") }, true},
		{"a.txt back, b.txt new", func() {
			write(t, filepath.Join(dir, "a.txt"), "a")
			write(t, filepath.Join(dir, "b.txt"), "b")
		}, true},
	} {
		step.do()
		if got, err := r.Dirty(context.Background()); err != nil || got != step.want {
			t.Errorf("%s: Dirty = %v, %v; want %v", step.what, got, err, step.want)
		}
	}
	if _, err := (Repo{Dir: t.TempDir()}).Dirty(context.Background()); err == nil || !strings.Contains(err.Error(), "git status --porcelain") {
		t.Errorf("Dirty outside a repository: %v, want git's error", err)
	}
}
