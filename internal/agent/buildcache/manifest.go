package buildcache

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Beside a cached build, its source's manifest (api.SourceManifest: every entry and each file's
// digest, as the agent extracted them) lets a later job skip the upload of that source: its
// controller proves it has the content (Proof) and the build is restored into the empty job
// folder. The manifest is the agent's own record of what it extracted, never the client's; it
// lives in the private cache, beside the build it was made with (KEY.src), and goes with it.

// manifestSuffix names a build's manifest file: KEY.src.
const manifestSuffix = ".src"

// maxManifestFile bounds the manifest read back (the extraction keeps at most 16 MiB of names).
const maxManifestFile = 64 << 20

// ErrNoManifest: the build, or its source's manifest, is not in the cache.
var ErrNoManifest = errors.New("no cached build with its source's manifest")

// SaveManifest records m as the manifest of the source the build key was made from, unless one
// is recorded already. It is written to a temporary file and renamed: a reader sees all or none.
func (c Cache) SaveManifest(key string, m api.SourceManifest) error {
	final := filepath.Join(c.Dir, key+manifestSuffix)
	if _, err := os.Lstat(final); err == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(c.Dir, tmpPrefix+key+"-*"+manifestSuffix)
	if err != nil {
		return fmt.Errorf("build cache %s: manifest: %w", key, err)
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), final)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("build cache %s: manifest: %w", key, werr)
	}
	return nil
}

// Manifest reads the manifest of the build key's source; ErrNoManifest when the build or its
// manifest is not cached.
func (c Cache) Manifest(key string) (api.SourceManifest, error) {
	if st, err := os.Stat(filepath.Join(c.Dir, key)); err != nil || !st.IsDir() {
		return nil, ErrNoManifest
	}
	f, err := os.OpenFile(filepath.Join(c.Dir, key+manifestSuffix), os.O_RDONLY|syscall.O_NOFOLLOW, 0) // the cache is private: no link is ours
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoManifest
	}
	if err != nil {
		return nil, fmt.Errorf("build cache %s: manifest: %w", key, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxManifestFile+1))
	if err != nil {
		return nil, fmt.Errorf("build cache %s: manifest: %w", key, err)
	}
	if len(b) > maxManifestFile {
		return nil, fmt.Errorf("build cache %s: manifest larger than %d bytes", key, maxManifestFile)
	}
	var m api.SourceManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("build cache %s: manifest: %w", key, err)
	}
	return m, nil
}

// companionOf names the build a cache folder entry goes with when it is a build's manifest
// (KEY.src) or spare (KEY.spare).
func companionOf(name string) (string, bool) {
	if strings.HasPrefix(name, tmpPrefix) {
		return "", false
	}
	if key, ok := strings.CutSuffix(name, manifestSuffix); ok {
		return key, true
	}
	return strings.CutSuffix(name, spareSuffix)
}
