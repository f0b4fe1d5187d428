package buildcache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Build is what a build's outputs depend on: the same extracted content (or repository commit),
// built by the same command with the same environment for the same platform, gives the same
// outputs.
type Build struct {
	// Identity is the content: the digest Extract returned, or a repository and commit. Never a
	// hash the client sent: a client could then run another upload's build.
	Identity     string
	Command      string
	Env          map[string]string // the job's variables (CGO_ENABLED, GOAMD64, FLAVOR...)
	GOOS, GOARCH string
	// User is the account the build ran as ("" the agent's own): a build reads its user's home
	// (a Go module cache, ~/.config/go/env), which whoever runs jobs as that user may have prepared.
	User string
}

// Key names the build in a Cache.
func (b Build) Key() string {
	fields := []string{b.Identity, b.Command, b.GOOS, b.GOARCH, b.User}
	for _, k := range slices.Sorted(maps.Keys(b.Env)) {
		fields = append(fields, k, b.Env[k])
	}
	return Digest(fields...)[:32]
}

// Digest is the hex SHA-256 of fields, each length-prefixed: no two lists of fields share it
// (joined with a separator, a field holding the separator would make another list's).
func Digest(fields ...string) string {
	h := sha256.New()
	for _, s := range fields {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Cache keeps built job folders under one directory, one folder per key. A folder's modification
// time is when it was last saved or restored, which is what Prune bounds by age and size. Several
// agents (or crank processes) may share one Cache: saves are atomic renames, and a restore that
// loses a race with a prune fails cleanly (the job then builds).
type Cache struct{ Dir string }

// tmpPrefix starts the folders a save stages its copy in.
const tmpPrefix = "tmp-"

// Restore makes dir hold the cached folder for key, and reports whether there was one. dir holds
// the sources the build was made from: only what differs is copied (restoreInPlace). When that
// cannot be done, the whole folder is copied beside dir and swapped in, so a failed restore leaves
// dir as it was, unless an in-place restore had begun writing: then the error says dir is spoilt.
func (c Cache) Restore(key, dir string) (bool, error) {
	src := filepath.Join(c.Dir, key)
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	applied, err := restoreInPlace(src, dir)
	if err == nil {
		now := time.Now()
		_ = os.Chtimes(src, now, now)
		return true, nil
	}
	if err := c.restoreCopy(key, src, dir); err != nil {
		if applied {
			return false, fmt.Errorf("%w; and %s was partly restored in place: %w", err, dir, ErrSpoilt)
		}
		return false, err
	}
	return true, nil
}

// ErrSpoilt: a restore failed after it had changed the job's folder, which no longer holds the
// sources: the job must not build there.
var ErrSpoilt = errors.New("job folder spoilt by a failed restore")

// restoreCopy copies the cached folder src beside dir and swaps it in.
func (c Cache) restoreCopy(key, src, dir string) error {
	staged := dir + ".restore"
	_ = os.RemoveAll(staged)
	if err := os.CopyFS(staged, os.DirFS(src)); err != nil {
		_ = os.RemoveAll(staged)
		return fmt.Errorf("build cache %s: restore: %w", key, err)
	}
	if err := os.Chmod(staged, 0o700); err != nil { // a job folder is private, restored or not
		_ = os.RemoveAll(staged)
		return fmt.Errorf("build cache %s: restore: %w", key, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		_ = os.RemoveAll(staged)
		return fmt.Errorf("build cache %s: %w", key, err)
	}
	if err := os.Rename(staged, dir); err != nil {
		return fmt.Errorf("build cache %s: restore: %w", key, err)
	}
	now := time.Now()
	_ = os.Chtimes(src, now, now) // marks it used; a failure only makes it look older
	return nil
}

// Save copies dir into the cache under key. It copies into a temporary folder first and renames
// it, so a reader never sees half a build; when another job saved the same key first, that copy
// stays. The cache is private (0700: builds hold the jobs' files), and dir is read through an
// os.Root: the build's processes may still run and swap a folder for a link to one outside
// (TestSaveIgnoresSwappedFolders).
func (c Cache) Save(key, dir string) error {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	if err := os.Chmod(c.Dir, 0o700); err != nil { // one an older agent made 0755
		return fmt.Errorf("build cache: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("build cache %s: save: %w", key, err)
	}
	defer root.Close()
	tmp, err := os.MkdirTemp(c.Dir, tmpPrefix+key+"-")
	if err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	staged := filepath.Join(tmp, "build")
	if err := os.CopyFS(staged, root.FS()); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("build cache %s: save: %w", key, err)
	}
	if err := os.Chmod(staged, 0o700); err != nil {
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
	now := time.Now()
	_ = os.Chtimes(final, now, now)
	return nil
}
