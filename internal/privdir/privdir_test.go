package privdir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOwned: a folder another user made first in a shared place, a link, or one others may write is
// refused; this user's own 0700 folder is used.
func TestOwned(t *testing.T) {
	base := t.TempDir()
	mine := filepath.Join(base, "mine")
	if err := os.Mkdir(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Owned(mine); err != nil {
		t.Errorf("own folder: %v", err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(open, 0o777)
	if err := Owned(open); err == nil || !strings.Contains(err.Error(), "may be written by other users") {
		t.Errorf("0777 folder: %v", err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	if err := Owned(link); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a link: %v", err)
	}
	if os.Getuid() == 0 {
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := Owned(theirs); err == nil || !strings.Contains(err.Error(), "belongs to another user") {
			t.Errorf("another user's folder: %v", err)
		}
	}
	made := filepath.Join(base, "a", "b")
	if err := Make(made); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{made, filepath.Dir(made)} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("made %s mode %s, want 0700 (docs/SECURITY.md)", d, fi.Mode().Perm())
		}
	}
}
