package pack

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// Exclude names the files of an uploaded folder that are crank's results, not source: a result
// written into the checkout (--json out.json, a sweep file, --csv) must neither be uploaded nor
// change the build-cache key, or every run rebuilds the app.
type Exclude struct {
	// Paths are files and folders this run writes (absolute, or relative to the working folder);
	// everything under a folder is left out.
	Paths []string
	// Written are the files crank wrote in earlier runs, as it left them (ReadLedger): such a
	// file is left out while its size and modification time are still those crank recorded.
	Written map[string]Stamp
}

// Stamp is a file's size and modification time (Unix nanoseconds); a zero Stamp is a folder,
// left out whatever its content.
type Stamp struct{ Size, ModNano int64 }

func (e Exclude) absolute() (Exclude, error) {
	out := Exclude{Written: e.Written}
	for _, p := range e.Paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return Exclude{}, err
		}
		out.Paths = append(out.Paths, a)
	}
	return out, nil
}

// excluded tells whether the file or folder at path (absolute) is a result.
func (e Exclude) excluded(path string, d fs.DirEntry) bool {
	for _, p := range e.Paths {
		if path == p || strings.HasPrefix(path, p+string(filepath.Separator)) {
			return true
		}
	}
	for dir := path; ; {
		if st, ok := e.Written[dir]; ok {
			if st == (Stamp{}) {
				return true // a folder of outputs (--output-dir)
			}
			if dir == path && !d.IsDir() {
				info, err := d.Info()
				return err == nil && info.Size() == st.Size && info.ModTime().UnixNano() == st.ModNano
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// Ledger is the file where crank records the result files it writes (one "size modnano path"
// line each; a folder is "0 0 path"), so a later run leaves them out of its uploads. It lives in
// the user's cache folder beside the embedded agent's builds.
type Ledger string

// DefaultLedger is $XDG_CACHE_HOME/crankshaft/written (~/.cache/crankshaft/written).
func DefaultLedger() (Ledger, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return Ledger(filepath.Join(base, "crankshaft", "written")), nil
}

// maxLedgerLines bounds the ledger: past it, Record rewrites it with only the files still there
// as recorded.
const maxLedgerLines = 2000

// Record notes the files (or folders) as crank's outputs as they are now. A path that does not
// exist is skipped.
func (l Ledger) Record(paths ...string) error {
	if l == "" {
		return nil
	}
	var b strings.Builder
	for _, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		info, err := os.Stat(a)
		if err != nil {
			continue
		}
		st := Stamp{}
		if !info.IsDir() {
			st = Stamp{info.Size(), info.ModTime().UnixNano()}
		}
		fmt.Fprintf(&b, "%d %d %s\n", st.Size, st.ModNano, a)
	}
	if b.Len() == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(string(l)), 0o700); err != nil {
		return err
	}
	// One append per call, each line well under PIPE_BUF: concurrent cranks do not interleave.
	// Through safewrite: the ledger may sit in a cache folder another user can write (root's
	// crank run with a user's XDG_CACHE_HOME), and a link planted at it had root append there.
	err := safewrite.Append(string(l), safewrite.Secret, func(w io.Writer, _ bool) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
	if err != nil {
		return err
	}
	return l.compact()
}

// Read returns the recorded files, the last record of each path.
func (l Ledger) Read() (map[string]Stamp, error) {
	m, _, err := l.read()
	return m, err
}

func (l Ledger) read() (map[string]Stamp, int, error) {
	out := map[string]Stamp{}
	if l == "" {
		return out, 0, nil
	}
	f, err := os.Open(string(l))
	if errors.Is(err, fs.ErrNotExist) {
		return out, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) != 3 {
			return nil, 0, fmt.Errorf("%s:%d: not \"size modnano path\"", l, n)
		}
		size, err1 := strconv.ParseInt(f[0], 10, 64)
		mod, err2 := strconv.ParseInt(f[1], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, 0, fmt.Errorf("%s:%d: %w", l, n, err)
		}
		out[f[2]] = Stamp{size, mod}
	}
	return out, n, sc.Err()
}

// compact rewrites a ledger grown past maxLedgerLines with one line per path still as recorded.
func (l Ledger) compact() error {
	m, n, err := l.read()
	if err != nil || n <= maxLedgerLines {
		return err
	}
	var b strings.Builder
	for p, st := range m {
		info, err := os.Stat(p)
		if err != nil || (st != Stamp{} && (info.Size() != st.Size || info.ModTime().UnixNano() != st.ModNano)) {
			continue
		}
		fmt.Fprintf(&b, "%d %d %s\n", st.Size, st.ModNano, p)
	}
	return safewrite.Replace(string(l), []byte(b.String()), safewrite.Secret)
}
