package pack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// MaxBuildFileBytes bounds one build file downloaded from a URL.
const MaxBuildFileBytes = 256 << 20

// MaxBuildFilesBytes bounds all of one job's build files together, as crank holds their archive
// in memory: eight URLs of 256 MiB of random bytes each, from a configuration fetched from
// anywhere, would have it hold 2 GiB. It is also below the agent's default --max-upload (512 MiB).
const MaxBuildFilesBytes = 256 << 20

// buildFileTimeout bounds one download.
const buildFileTimeout = 2 * time.Minute

// PackBuildFiles gathers crank's buildFiles ("path[;folder]", api.ParseBuildFile) into one
// tar.gz whose entries are folder/<name>: a local glob's matches by their names ("dir/**/*.cs"
// keeps each file's folder below dir), a URL's body by the last segment of its path. A pattern
// that matches no file, or a download that fails, is an error naming the entry.
func PackBuildFiles(ctx context.Context, entries []string, client *http.Client) (*Packed, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	h := sha256.New()
	files, total := 0, 0
	add := func(name string, mode fs.FileMode, body []byte) error {
		if total += len(body); total > MaxBuildFilesBytes {
			return fmt.Errorf("the build files come to more than %d MiB in all (at %s): crank holds them in memory to upload", MaxBuildFilesBytes>>20, name)
		}
		hdr := &tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: int64(mode.Perm()), Size: int64(len(body))}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%o\x00", name, mode.Perm())
		h.Write(body)
		_, err := tw.Write(body)
		files++
		return err
	}
	for _, e := range entries {
		src, folder, err := api.ParseBuildFile(e)
		if err == nil {
			if isHTTP(src) {
				err = download(ctx, client, src, folder, add)
			} else {
				err = globFiles(src, folder, add)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("buildFiles %q: %w", e, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return &Packed{TarGz: buf.Bytes(), Hash: hex.EncodeToString(h.Sum(nil)), Files: files}, nil
}

func isHTTP(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

type addFunc func(name string, mode fs.FileMode, body []byte) error

func download(ctx context.Context, client *http.Client, raw, folder string, add addFunc) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	name := path.Base(u.Path)
	if name == "/" || name == "." || name == "" {
		return fmt.Errorf("the URL's path names no file")
	}
	ctx, cancel := context.WithTimeout(ctx, buildFileTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBuildFileBytes+1))
	if err != nil {
		return err
	}
	if len(body) > MaxBuildFileBytes {
		return fmt.Errorf("larger than %d bytes", MaxBuildFileBytes)
	}
	return add(path.Join(folder, name), 0o644, body)
}

// globFiles adds the regular files pattern matches; with "**/" in it, the files below its
// folder whose names match its last element, each at its path below that folder.
func globFiles(pattern, folder string, add addFunc) error {
	recursive := strings.Contains(pattern, "**")
	pattern = strings.ReplaceAll(pattern, "**"+string(filepath.Separator), "")
	base, namePattern := filepath.Dir(pattern), filepath.Base(pattern)
	if _, err := filepath.Match(namePattern, ""); err != nil {
		return err
	}
	var matches []string
	walk := func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != base && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if ok, _ := filepath.Match(namePattern, d.Name()); ok && d.Type().IsRegular() {
			matches = append(matches, p)
		}
		return nil
	}
	if err := filepath.WalkDir(base, walk); err != nil {
		return err
	}
	if len(matches) == 0 {
		return fmt.Errorf("no file matches")
	}
	for _, m := range matches {
		rel, err := filepath.Rel(base, m)
		if err != nil {
			return err
		}
		fi, err := os.Stat(m)
		if err != nil {
			return err
		}
		body, err := os.ReadFile(m)
		if err != nil {
			return err
		}
		if err := add(path.Join(folder, filepath.ToSlash(rel)), fi.Mode(), body); err != nil {
			return err
		}
	}
	return nil
}
