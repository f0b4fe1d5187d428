package influx

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/privdir"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// SpoolExt ends the name of every spooled run.
const SpoolExt = ".lp"

// unsafeName matches what a spool file name leaves out of a session.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Spool is a folder of runs waiting to be written: one line-protocol file per run, named after
// the run's start time so the oldest is retried first. Lines starting with # are comments.
type Spool struct{ Dir string }

// Pending is one spooled run.
type Pending struct {
	Path   string
	Points int
}

// FileName is the spool file of a run. It depends on the run only, so spooling the same run
// again replaces its file instead of adding a second copy.
func FileName(res *results.Result) string {
	start, _ := RunTime(res)
	session := SessionOf(res)
	sum := sha256.Sum256([]byte(res.Scenario + "\x00" + session + "\x00" + start.Format(time.RFC3339Nano)))
	safe := unsafeName.ReplaceAllString(session, "_")
	if len(safe) > 40 {
		safe = safe[:40]
	}
	return fmt.Sprintf("%s-%s-%s%s", start.Format("20060102T150405.000000000Z"), safe,
		hex.EncodeToString(sum[:4]), SpoolExt)
}

// Save writes a run's lines to the spool atomically (a temporary file, synced, then renamed).
func (s Spool) Save(name string, header []string, lines []string) (string, error) {
	if err := privdir.Make(s.Dir); err != nil { // nobody else's: its runs go out with this user's token
		return "", fmt.Errorf("spool %s: %w", s.Dir, err)
	}
	var b strings.Builder
	for _, h := range header {
		b.WriteString("# " + strings.ReplaceAll(h, "\n", " ") + "\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	path := filepath.Join(s.Dir, name)
	if err := safewrite.Replace(path, []byte(b.String()), safewrite.Secret); err != nil {
		return "", fmt.Errorf("spool %s: %w", path, err)
	}
	return path, nil
}

// List returns the spooled runs, oldest first. A missing folder has none.
func (s Spool) List() ([]Pending, error) {
	if err := privdir.Owned(s.Dir); err != nil { // another user's files would be sent with this user's token
		return nil, fmt.Errorf("spool %s: %w", s.Dir, err)
	}
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool %s: %w", s.Dir, err)
	}
	var out []Pending
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), SpoolExt) {
			continue
		}
		path := filepath.Join(s.Dir, e.Name())
		_, lines, err := s.Read(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // written by a concurrent push meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Pending{Path: path, Points: len(lines)})
	}
	slices.SortFunc(out, func(a, b Pending) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// Read returns a spool file's comment lines (without "# ") and its points' lines.
func (s Spool) Read(path string) (header, lines []string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("spool: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
			header = append(header, strings.TrimSpace(strings.TrimPrefix(l, "#")))
		case strings.TrimSpace(l) != "":
			lines = append(lines, l)
		}
	}
	return header, lines, nil
}

// Remove deletes a spool file once its points are written.
func (s Spool) Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Totals counts the spooled runs and their points.
func (s Spool) Totals() (runs, points int, err error) {
	list, err := s.List()
	for _, p := range list {
		runs++
		points += p.Points
	}
	return runs, points, err
}
