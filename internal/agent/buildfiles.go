package agent

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/crankshaft/crankshaft/internal/agent/extract"
)

// buildFilesKey is the uploads entry of a job's build files (no source name holds a control
// character: api.CheckSources).
const buildFilesKey = "\x00buildFiles"

// filesSuffix names the folder beside a job's folder that holds its build files until its
// sources are in place.
const filesSuffix = ".files"

// uploadLabel names an upload in messages.
func uploadLabel(name string) string {
	switch name {
	case "":
		return "source"
	case buildFilesKey:
		return "buildFiles"
	}
	return "sources." + name
}

// filesTarget makes the folder an upload of build files is extracted into.
func (j *job) filesTarget() (*os.Root, error) {
	dir := j.dir + filesSuffix
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil { // private, as the job's folder (its appsettings.json)
		return nil, err
	}
	return os.OpenRoot(dir)
}

// placeBuildFiles moves the uploaded build files into the job's folder, replacing what its
// sources put at the same paths (crank copies them over the sources). Each file's folder is made
// with no component a symlink or a file, and a file never replaces a folder.
func placeBuildFiles(dir string) error {
	held := dir + filesSuffix
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	err = filepath.WalkDir(held, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: build files are plain files", p)
		}
		rel, err := filepath.Rel(held, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if err := extract.MkdirInside(root, path.Dir(rel)); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if fi, err := root.Lstat(rel); err == nil && fi.IsDir() {
			return fmt.Errorf("%s: a folder of the job's sources is there", rel)
		}
		return os.Rename(p, filepath.Join(dir, filepath.FromSlash(rel))) // replaces a file or a link, never follows it
	})
	if err != nil {
		return fmt.Errorf("buildFiles: %w", err)
	}
	return os.RemoveAll(held)
}
