// Package safewrite writes the files a user names (results, CSV rows, reports, job logs, a dry
// run) as a careful tool does in a folder others may write (a shared /tmp, a lab's share):
//
//   - never through a symbolic link, nor into a folder, fifo or device, at the path: the error
//     names the path (another user planted a link, and crank running as root wrote over the
//     file it pointed to: issue 41, MEDIUM 3);
//   - a whole file is written into a temporary file made exclusively (O_EXCL, O_NOFOLLOW) with
//     an unpredictable name beside the path, then renamed over it: no predictable PATH.tmp
//     another user can plant, and no half-written file;
//   - another user's file in a sticky folder anyone may write (/tmp) is refused, as the kernel's
//     fs.protected_regular refuses it: that user planted it to read or rewrite what crank writes;
//   - a new file gets the caller's mode as the user's umask leaves it (0666 gives the 0644 users
//     expect of outputs with umask 022; a secret asks for 0600); a file replaced keeps its mode,
//     never looser than the caller's.
//
// Of the folders on the way, only links another user planted in a sticky folder anyone may write
// are refused (as fs.protected_symlinks would); the rest are the user's choice.
package safewrite

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Modes for Replace and Append: Output for what a user reads and shares, Secret for what must
// stay the user's.
const (
	Output fs.FileMode = 0o666
	Secret fs.FileMode = 0o600
)

var (
	// ErrLink is the error (in an *fs.PathError naming the path) for a symbolic link at the path.
	ErrLink = errors.New("is a symbolic link: crank does not write through links (remove it, or name another path)")
	// ErrNotRegular is the error for a folder, fifo, socket or device at the path.
	ErrNotRegular = errors.New("is not a regular file: crank writes only regular files (remove it, or name another path)")
	// ErrPlanted is the error for another user's file in a sticky folder others may write.
	ErrPlanted = errors.New("belongs to another user, in a folder anyone may write: crank does not write into it (remove it, or name another path)")
)

// Check tells why crank may not write the file at path (nil: it may), before a run that ends in
// writing it.
func Check(path string) error {
	_, err := check(path)
	return err
}

// check returns what is at path (nil when nothing is) or why crank may not write there.
func check(path string) (fs.FileInfo, error) {
	if err := checkFolders(path); err != nil {
		return nil, err
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &fs.PathError{Op: "write", Path: path, Err: ErrLink}
	case !fi.Mode().IsRegular():
		return nil, &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	}
	return fi, plantedFile(path, fi)
}

// plantedFile refuses a file of another user in a folder where everyone may make files and only
// their owners remove them (a sticky, world-writable folder: /tmp): that user made it first, and
// crank running as root appended its results to it, wrote a job's logs into it (the other user
// reading them), or replaced it keeping its mode (0666: results anyone could rewrite). The
// kernel's fs.protected_regular refuses the same opens, where it is on.
func plantedFile(path string, fi fs.FileInfo) error {
	if uid, ok := plantedBy(path, fi); ok {
		return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (user %d's)", ErrPlanted, uid)}
	}
	return nil
}

// plantedBy tells whether fi, what is at path, belongs to another user (whose id it returns) and
// lies in a sticky folder anyone may write: made there first by that user, not by crank's.
func plantedBy(path string, fi fs.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return 0, false
	}
	parent, err := os.Stat(filepath.Dir(filepath.Clean(path)))
	if err != nil || parent.Mode()&fs.ModeSticky == 0 || parent.Mode().Perm()&0o002 == 0 {
		return 0, false
	}
	return st.Uid, true
}

// CheckDir tells why crank may not write files into the folder at path (nil: it may, or it does
// not exist yet): a link, or another user's folder, made in a sticky folder anyone may write
// (/tmp). That user chose where crank's files go (a link to /etc/logrotate.d, where a job's output
// would be read as root's configuration) or reads and replaces them. The kernel's
// fs.protected_symlinks refuses to follow such a link, where it is on.
func CheckDir(path string) error { return plantedDir(path, false) }

// plantedDir is CheckDir, for links only when linksOnly.
func plantedDir(path string, linksOnly bool) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if linksOnly && fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	uid, planted := plantedBy(path, fi)
	if !planted {
		return nil
	}
	what := "a folder"
	if fi.Mode()&fs.ModeSymlink != 0 {
		what = "a link"
	}
	return &fs.PathError{Op: "write into", Path: path, Err: fmt.Errorf("%w (%s of user %d's)", ErrPlanted, what, uid)}
}

// checkFolders refuses a link another user planted in a sticky folder anyone may write on the way
// to path (CheckDir's links; another user's folder there may be a team's shared one): --json
// /tmp/d/out.json with a link /tmp/d planted by another user wrote where that user chose.
func checkFolders(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if err := plantedDir(dir, true); err != nil {
			return err
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}

// Replace writes data as the file at path: into a new temporary file beside it, then renamed over
// it (a rename replaces a link planted after the check instead of following it).
func Replace(path string, data []byte, perm fs.FileMode) error {
	old, err := check(path)
	if err != nil {
		return err
	}
	f, err := createTemp(path, perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	if old != nil {
		err = f.Chmod(old.Mode().Perm() & perm)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// tempTries bounds the names createTemp tries (each 64 random bits: a clash is a planted file).
const tempTries = 100

// createTemp makes a new file beside path, named .BASE.tmp-RANDOM, with perm as the umask leaves
// it: os.CreateTemp's exclusive creation, with the caller's mode instead of 0600.
func createTemp(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(path)
	for range tempTries {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(b))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("writing %s: no free temporary name beside it after %d tries", path, tempTries)
}

// Append opens the regular file at path to append to it (made with perm as the umask leaves it
// when missing) and calls write with it and whether it was empty before.
func Append(path string, perm fs.FileMode, write func(w io.Writer, empty bool) error) error {
	f, err := open(path, os.O_APPEND, perm)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil {
		err = write(f, fi.Size() == 0)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	return nil
}

// Create opens the regular file at path to write it from its start as it goes (a log written
// during a run), made with perm as the umask leaves it when missing, emptied when not.
func Create(path string, perm fs.FileMode) (*os.File, error) {
	return open(path, os.O_TRUNC, perm)
}

// open opens the regular file at path for writing with flag, creating it with perm.
func open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if _, err := check(path); err != nil {
		return nil, err
	}
	// O_NOFOLLOW: a link planted after the check fails the open; O_NONBLOCK: a fifo planted
	// after it does not hang the open (and is refused below).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|flag, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &fs.PathError{Op: "write", Path: path, Err: ErrLink}
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	}
	if err == nil {
		err = plantedFile(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
