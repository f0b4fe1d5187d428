package output

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// Files are the files a run writes and reads besides its scenario: --json, --csv, --compare,
// --output-dir.
type Files struct {
	JSON, CSV string
	Compare   []string
	Dir       string
}

// ProfileDir is where a run's profiles are saved: the output folder (--output-dir), else the
// JSON's folder, else nowhere (their top functions are still shown).
func (f Files) ProfileDir() string {
	if f.Dir != "" {
		return f.Dir
	}
	if f.JSON != "" && f.JSON != "-" {
		return filepath.Dir(f.JSON)
	}
	return ""
}

// CheckFiles checks, before anything runs, every file a run will write (it can be created there)
// and read (it is a result file), so a long run does not end in a lost result.
func CheckFiles(f Files) error {
	var problems []error
	if f.JSON != "" && f.JSON != "-" {
		if err := writable(f.JSON); err != nil {
			problems = append(problems, fmt.Errorf("--json %s: %w", f.JSON, err))
		}
	}
	if f.CSV != "" { // appended to: its folder need not take new files
		if err := safewrite.Check(f.CSV); err != nil {
			problems = append(problems, fmt.Errorf("--csv %s: %w", f.CSV, err))
		}
	}
	for _, c := range f.Compare {
		if _, err := results.ReadFile(c); err != nil {
			problems = append(problems, fmt.Errorf("--compare: %w", err))
		}
	}
	if d := f.Dir; d != "" {
		// Checked before it is made (MkdirAll would make a planted link's target) and after.
		if err := safewrite.CheckDir(d); err != nil {
			problems = append(problems, fmt.Errorf("--output-dir: %w", err))
		} else if err := os.MkdirAll(d, 0o755); err != nil {
			problems = append(problems, fmt.Errorf("--output-dir: %w", err))
		} else if err := safewrite.CheckDir(d); err != nil {
			problems = append(problems, fmt.Errorf("--output-dir: %w", err))
		} else if err := writable(filepath.Join(d, "check")); err != nil {
			problems = append(problems, fmt.Errorf("--output-dir %s: %w", d, err))
		}
	}
	return errors.Join(problems...)
}

// writable tells whether a file can be written at path: nothing crank refuses to write through
// is there (safewrite.Check: a link, a folder), and another file can be created in its folder.
func writable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("is a folder")
	}
	if err := safewrite.Check(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("folder %s does not exist", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	tmp, err := os.CreateTemp(dir, ".crank-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}
