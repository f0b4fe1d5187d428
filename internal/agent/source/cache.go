package source

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CacheKey names a build: the same uploaded content, built by the same command for the same
// platform, gives the same outputs.
func CacheKey(hash, buildCommand, goos, goarch string) string {
	h := sha256.New()
	for _, s := range []string{hash, buildCommand, goos, goarch} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Cache keeps built job folders under one directory, one folder per key.
type Cache struct{ Dir string }

// Restore copies the cached folder for key into dir (which should be empty) and reports whether
// there was one.
func (c Cache) Restore(key, dir string) (bool, error) {
	src := filepath.Join(c.Dir, key)
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, fmt.Errorf("build cache %s: %w", key, err)
	}
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		return false, fmt.Errorf("build cache %s: restore: %w", key, err)
	}
	return true, nil
}

// Save copies dir into the cache under key. It copies into a temporary folder first and renames
// it, so a reader never sees half a build; when another job saved the same key first, that copy
// stays.
func (c Cache) Save(key, dir string) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	tmp, err := os.MkdirTemp(c.Dir, "tmp-"+key+"-")
	if err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	staged := filepath.Join(tmp, "build")
	if err := os.CopyFS(staged, os.DirFS(dir)); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("build cache %s: save: %w", key, err)
	}
	final := filepath.Join(c.Dir, key)
	err = os.Rename(staged, final)
	os.RemoveAll(tmp)
	if err != nil {
		if _, serr := os.Stat(final); serr == nil {
			return nil // saved by another job meanwhile
		}
		return fmt.Errorf("build cache %s: save: %w", key, err)
	}
	return nil
}
