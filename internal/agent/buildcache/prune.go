package buildcache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// staleTmp is how old a save's staging folder must be before Prune takes it for the leftover of
// a crashed save.
const staleTmp = time.Hour

// cachedBuild is one cached build.
type cachedBuild struct {
	path  string
	used  time.Time
	bytes int64
}

// PruneStats says what a Prune did.
type PruneStats struct {
	Removed int   // cached builds removed
	Kept    int   // cached builds left
	Bytes   int64 // size of the builds left
}

// Prune removes the cached builds unused for longer than maxAge, then the least recently used ones
// until the rest hold at most maxBytes (0: no bound for either), and staging folders left by
// crashed saves. A cache folder that does not exist is empty.
func (c Cache) Prune(maxBytes int64, maxAge time.Duration, now time.Time) (PruneStats, error) {
	ents, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return PruneStats{}, nil
	}
	if err != nil {
		return PruneStats{}, err
	}
	var builds []cachedBuild
	var errs []error
	names := map[string]bool{}
	for _, e := range ents {
		names[e.Name()] = e.IsDir()
	}
	for _, e := range ents {
		p := filepath.Join(c.Dir, e.Name())
		if key, ok := companionOf(e.Name()); ok {
			if !names[key] { // its build went
				errs = append(errs, os.RemoveAll(p))
			}
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if strings.HasPrefix(e.Name(), tmpPrefix) { // a save's staging folder, a manifest's file
			if now.Sub(info.ModTime()) > staleTmp {
				errs = append(errs, os.RemoveAll(p))
			}
			continue
		}
		if !e.IsDir() {
			continue
		}
		builds = append(builds, cachedBuild{path: p, used: info.ModTime(), bytes: dirBytes(p) + dirBytes(p+spareSuffix)})
	}
	sort.Slice(builds, func(i, k int) bool { return builds[i].used.After(builds[k].used) }) // newest first
	var st PruneStats
	for _, b := range builds {
		tooOld := maxAge > 0 && now.Sub(b.used) > maxAge
		tooBig := maxBytes > 0 && st.Bytes+b.bytes > maxBytes
		if tooOld || tooBig {
			errs = append(errs, os.RemoveAll(b.path), os.RemoveAll(b.path+manifestSuffix), os.RemoveAll(b.path+spareSuffix))
			st.Removed++
			continue
		}
		st.Kept++
		st.Bytes += b.bytes
	}
	return st, errors.Join(errs...)
}

// dirBytes is the size of the regular files under dir (unreadable parts count as nothing).
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, ierr := d.Info(); ierr == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
