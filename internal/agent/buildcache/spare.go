package buildcache

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A restore into an empty job folder copies every file of the build (a Go app's: 1,400 files,
// 0.3 to 1 s on a busy machine, most of it creating files). A spare is a whole copy of a build
// that the agent made from the cache (KEY.spare): a job whose source is taken from the cache gets
// it by one rename, and the agent makes the next one after that job is deleted (MakeSpare), off
// the path to the job's first request. A spare is the cache's own copy, never a job's folder: a
// job cannot have written into it. It is pruned with its build.

// spareSuffix names a build's spare copy: KEY.spare.
const spareSuffix = ".spare"

// ErrOtherDevice: the job folder is on another file system than the cache; a spare cannot be
// renamed into it, so making spares is useless.
var ErrOtherDevice = errors.New("the job folder and the build cache are on different file systems")

// TakeSpare renames the build key's spare to dir, an empty folder (replaced), and reports whether
// there was one. Without one, dir is left as it was.
func (c Cache) TakeSpare(key, dir string) (bool, error) {
	spare := filepath.Join(c.Dir, key+spareSuffix)
	if _, err := os.Lstat(spare); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	build := filepath.Join(c.Dir, key)
	now := time.Now()
	_ = os.Chtimes(build, now, now)        // used: a prune from now on keeps it, and its spare
	if err := os.Remove(dir); err != nil { // fails unless empty
		return false, fmt.Errorf("build cache %s: spare: %w", key, err)
	}
	err := os.Rename(spare, dir)
	if err != nil {
		if merr := os.Mkdir(dir, 0o700); merr != nil {
			return false, fmt.Errorf("build cache %s: spare: %w (and %s not made again: %w)", key, err, dir, merr)
		}
		switch {
		case errors.Is(err, fs.ErrNotExist): // another job took it
			return false, nil
		case isCrossDevice(err):
			return false, ErrOtherDevice
		}
		return false, fmt.Errorf("build cache %s: spare: %w", key, err)
	}
	if _, err := os.Stat(build); err != nil {
		// a prune that began before it was marked used removes the build before its spare: it
		// may have been removing files of what is now dir
		return false, fmt.Errorf("build cache %s: spare taken while its build was pruned: %w", key, ErrSpoilt)
	}
	return true, os.Chmod(dir, 0o700)
}

// MakeSpare copies the build key into its spare, unless it has one or is not cached. It is copied
// into a staging folder first and renamed, so a spare is always whole; ctx's end stops the copy
// between two files and removes what it made.
func (c Cache) MakeSpare(ctx context.Context, key string) error {
	src := filepath.Join(c.Dir, key)
	spare := src + spareSuffix
	if _, err := os.Lstat(spare); err == nil {
		return nil
	}
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return nil
	}
	tmp, err := os.MkdirTemp(c.Dir, tmpPrefix+key+"-spare-")
	if err != nil {
		return fmt.Errorf("build cache %s: spare: %w", key, err)
	}
	defer os.RemoveAll(tmp)
	staged := filepath.Join(tmp, "build")
	if err := os.CopyFS(staged, ctxFS{ctx, os.DirFS(src)}); err != nil {
		return fmt.Errorf("build cache %s: spare: %w", key, err)
	}
	if err := os.Chmod(staged, 0o700); err != nil {
		return fmt.Errorf("build cache %s: spare: %w", key, err)
	}
	if err := os.Rename(staged, spare); err != nil {
		if _, serr := os.Lstat(spare); serr == nil {
			return nil // made by another job meanwhile
		}
		return fmt.Errorf("build cache %s: spare: %w", key, err)
	}
	return nil
}

// ctxFS stops opening files once ctx ends.
type ctxFS struct {
	ctx context.Context
	fs.FS
}

func (c ctxFS) Open(name string) (fs.File, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	return c.FS.Open(name)
}
