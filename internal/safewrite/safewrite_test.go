package safewrite

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestModes: a new file takes the caller's mode as the umask leaves it; a replaced file keeps its
// own mode, never looser than the caller's.
func TestModes(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	out, secret, kept := filepath.Join(dir, "out"), filepath.Join(dir, "secret"), filepath.Join(dir, "kept")
	if err := os.WriteFile(kept, nil, 0o604); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(kept, 0o604); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		path string
		perm fs.FileMode
	}{{out, Output}, {secret, Secret}, {kept, Output}} {
		if err := Replace(w.path, []byte("x"), w.perm); err != nil {
			t.Fatal(err)
		}
	}
	if err := Append(filepath.Join(dir, "csv"), Output, func(io.Writer, bool) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]fs.FileMode{out: 0o640, secret: 0o600, kept: 0o604, filepath.Join(dir, "csv"): 0o640} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", filepath.Base(path), fi.Mode().Perm(), err, want)
		}
	}
}

// TestInTheWay: a link, a folder or a fifo at the path is refused naming it, before anything is
// opened (a fifo would hang an open for writing); nothing is left beside it.
func TestInTheWay(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	lnk, sub, fifo := filepath.Join(dir, "link"), filepath.Join(dir, "sub"), filepath.Join(dir, "fifo")
	if err := errors.Join(os.Symlink(target, lnk), os.Mkdir(sub, 0o755), syscall.Mkfifo(fifo, 0o644)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]error{lnk: ErrLink, sub: ErrNotRegular, fifo: ErrNotRegular} {
		for name, err := range map[string]error{
			"Replace": Replace(path, []byte("x"), Output),
			"Append":  Append(path, Output, func(io.Writer, bool) error { return nil }),
			"Check":   Check(path),
		} {
			var pe *fs.PathError
			if !errors.Is(err, want) || !errors.As(err, &pe) || pe.Path != path {
				t.Errorf("%s(%s): %v, want %v naming the path", name, filepath.Base(path), err, want)
			}
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "kept" {
		t.Errorf("the link's target was written: %q", b)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
		t.Errorf("left beside: %v", names)
	}
}

// TestAppendTellsEmpty: Append says whether the file was empty (the CSV header is written once),
// and a failed write is an error naming the path.
func TestAppendTellsEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.csv")
	var seen []bool
	for range 2 {
		if err := Append(path, Output, func(w io.Writer, empty bool) error {
			seen = append(seen, empty)
			_, err := io.WriteString(w, "row\n")
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "row\nrow\n" || fmt.Sprint(seen) != "[true false]" {
		t.Errorf("file %q, empty %v: want two rows, empty then not", b, seen)
	}
	err := Append(path, Output, func(io.Writer, bool) error { return errors.New("disk full") })
	if err == nil || err.Error() != "appending to "+path+": disk full" {
		t.Errorf("a failed write: %v", err)
	}
}

// TestCreate: Create empties a regular file it opens, and refuses a link naming the path.
func TestCreate(t *testing.T) {
	dir := t.TempDir()
	path, target := filepath.Join(dir, "latency.log"), filepath.Join(dir, "target")
	if err := errors.Join(os.WriteFile(path, []byte("old"), 0o644), os.WriteFile(target, []byte("kept"), 0o644)); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, Output)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.WriteString(f, "new")
	if err := errors.Join(err, f.Close()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("%s: %q, want only what was written", path, b)
	}
	lnk := filepath.Join(dir, "link")
	if err := os.Symlink(target, lnk); err != nil {
		t.Fatal(err)
	}
	if f, err := Create(lnk, Output); !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), lnk) {
		t.Errorf("Create through a link: %v, %v; want ErrLink naming it", f, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "kept" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// TestPlantedFileOfAnotherUser: in a sticky folder anyone may write (/tmp), another user made the
// file first (0666): root's crank appended to it, wrote logs into it, or replaced it keeping 0666.
// Each is refused naming the path and the user, the file left as it was; in a folder that is not
// sticky and world-writable, another user's file is the user's choice and written.
func TestPlantedFileOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	const nobody = 65534
	shared := filepath.Join(t.TempDir(), "shared")
	if err := errors.Join(os.Mkdir(shared, 0o755), os.Chmod(shared, 0o777|fs.ModeSticky)); err != nil {
		t.Fatal(err)
	}
	plant := func(dir string) string {
		p := filepath.Join(dir, "out")
		if err := errors.Join(os.WriteFile(p, []byte("planted"), 0o666), os.Chmod(p, 0o666), os.Chown(p, nobody, nobody)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plant(shared)
	noop := func(io.Writer, bool) error { return nil }
	for name, write := range map[string]func() error{
		"Replace": func() error { return Replace(p, []byte("results"), Output) },
		"Append":  func() error { return Append(p, Output, noop) },
		"Create": func() error {
			f, err := Create(p, Output)
			if err == nil {
				f.Close()
			}
			return err
		},
	} {
		err := write()
		if !errors.Is(err, ErrPlanted) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "user 65534's") {
			t.Errorf("%s: %v, want ErrPlanted naming %s and the user", name, err, p)
		}
		if b, _ := os.ReadFile(p); string(b) != "planted" {
			t.Errorf("%s: the planted file now holds %q", name, b)
		}
	}
	mine := plant(t.TempDir())
	if err := Append(mine, Output, func(w io.Writer, _ bool) error { _, err := io.WriteString(w, "+"); return err }); err != nil {
		t.Errorf("another user's file outside a shared folder: %v", err)
	}
}

// TestPlantedFolderOnTheWay: --json /tmp/d/out.json, with /tmp/d a link another user planted (to
// a folder of root's), wrote out.json where that user chose; a link or another user's folder on
// the way, made in a sticky folder anyone may write, is refused naming it, and nothing is written.
func TestPlantedFolderOnTheWay(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a link to another user")
	}
	shared := filepath.Join(t.TempDir(), "shared")
	target := t.TempDir()
	if err := errors.Join(os.Mkdir(shared, 0o755), os.Chmod(shared, 0o777|fs.ModeSticky)); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(shared, "d")
	if err := errors.Join(os.Symlink(target, link), os.Lchown(link, 65534, 65534)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(link, "out.json"), filepath.Join(link, "sub", "..", "out.json")} {
		err := Replace(p, []byte("{}"), Output)
		if !errors.Is(err, ErrPlanted) || !strings.Contains(err.Error(), link+": belongs to another user") {
			t.Errorf("Replace(%s): %v, want ErrPlanted naming %s", p, err, link)
		}
	}
	if entries, _ := os.ReadDir(target); len(entries) > 0 {
		t.Errorf("written through the planted link: %v", entries)
	}
}
