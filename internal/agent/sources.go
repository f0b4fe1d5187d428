package agent

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/crankshaft/crankshaft/internal/agent/extract"
	"github.com/crankshaft/crankshaft/internal/api"
)

// checkNamedSources refuses named sources the agent cannot place safely: see api.CheckSources,
// plus the repository and revision checks of a clone.
func checkNamedSources(list []api.NamedSource) []string {
	problems := api.CheckSources(list)
	for _, s := range list {
		if s.Repository == "" {
			continue
		}
		for _, err := range []error{checkRepository(s.Repository), checkRevision(s.BranchOrCommit)} {
			if err != nil {
				problems = append(problems, "sources."+s.Name+": "+err.Error())
			}
		}
	}
	return problems
}

// named finds the job's named source called name.
func (j *job) named(name string) (api.NamedSource, bool) {
	for _, s := range j.spec.Sources {
		if s.Name == name {
			return s, true
		}
	}
	return api.NamedSource{}, false
}

// awaited lists the uploads the job still waits for ("source", "sources.<name>").
func (j *job) awaited() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.awaitedLocked()
}

func (j *job) awaitedLocked() []string {
	var out []string
	if src := j.spec.Source; src != nil && src.LocalFolder != "" {
		if _, ok := j.uploads[""]; !ok {
			out = append(out, "source")
		}
	}
	for _, s := range j.spec.Sources {
		if _, ok := j.uploads[s.Name]; s.LocalFolder != "" && !ok {
			out = append(out, "sources."+s.Name)
		}
	}
	if _, ok := j.uploads[buildFilesKey]; len(j.spec.BuildFiles) > 0 && !ok {
		out = append(out, "buildFiles")
	}
	return out
}

// uploadTarget is where an upload of the source called name ("" the job's own) is extracted:
// the job's folder, or the named source's destination made inside it (no component a symlink
// or a file). The caller closes the root.
func (j *job) uploadTarget(name string) (*os.Root, error) {
	if name == buildFilesKey {
		if len(j.spec.BuildFiles) == 0 {
			return nil, badRequest("job %s has no buildFiles", j.id)
		}
		return j.filesTarget()
	}
	root, err := os.OpenRoot(j.dir)
	if err != nil || name == "" {
		return root, err
	}
	defer root.Close()
	s, ok := j.named(name)
	switch {
	case !ok:
		return nil, notFound("job %s has no source named %q", j.id, name)
	case s.LocalFolder == "":
		return nil, badRequest("job %s: sources.%s is a repository: the agent clones it, nothing is uploaded", j.id, name)
	}
	if err := extract.MkdirInside(root, s.Dest()); err != nil {
		return nil, badRequest("job %s: sources.%s: destinationFolder %q: %v", j.id, name, s.Dest(), err)
	}
	return root.OpenRoot(s.Dest())
}

// resetUpload undoes a failed upload so a retry starts clean: the job's own source empties the
// job folder (and forgets every upload), a named one removes its folder.
func (j *job) resetUpload(name string) error {
	switch name {
	case "":
		return j.resetDir()
	case buildFilesKey:
		j.mu.Lock()
		delete(j.uploads, name)
		j.mu.Unlock()
		return os.RemoveAll(j.dir + filesSuffix)
	}
	s, _ := j.named(name)
	root, err := os.OpenRoot(j.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	j.mu.Lock()
	delete(j.uploads, name)
	j.mu.Unlock()
	return root.RemoveAll(s.Dest())
}

// placeClone moves a clone made in staging to dest inside the job's folder: "." merges its
// entries into the folder (none may be there already: another source's), a named destination
// must not exist or be an empty folder, and its parents are made with no component a symlink.
func placeClone(dir, staging, dest string) error {
	if dest == "." {
		ents, err := os.ReadDir(staging)
		if err != nil {
			return err
		}
		for _, e := range ents {
			to := filepath.Join(dir, e.Name())
			if _, err := os.Lstat(to); err == nil {
				return fmt.Errorf("%q is both in the repository and in another source", e.Name())
			}
			if err := os.Rename(filepath.Join(staging, e.Name()), to); err != nil {
				return err
			}
		}
		return nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := extract.MkdirInside(root, path.Dir(dest)); err != nil {
		return err
	}
	if fi, err := root.Lstat(dest); err == nil {
		if !fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%q already exists and is not a folder", dest)
		}
		if err := root.Remove(dest); err != nil { // fails unless empty
			return fmt.Errorf("%q already holds files of another source", dest)
		}
	}
	return os.Rename(staging, filepath.Join(dir, filepath.FromSlash(dest)))
}

// sourcesIdentity is the build caches' identity of every source of a job: the job's own (may be
// "") and its build files' digest, then each named one's destination and identity, in name order. It is "" when a named
// source has no identity (nothing can then be reused safely).
func sourcesIdentity(own string, named []api.NamedSource, ids map[string]string) string {
	files, hasFiles := ids[buildFilesKey]
	if len(named) == 0 && !hasFiles {
		return own // the key of a job with one source is unchanged
	}
	parts := []string{own}
	if hasFiles {
		parts = append(parts, "buildFiles="+files)
	}
	for _, s := range named {
		id := ids[s.Name]
		if id == "" {
			return ""
		}
		parts = append(parts, fmt.Sprintf("sources.%s=%s:%s", s.Name, s.Dest(), id))
	}
	return strings.Join(parts, "\n")
}
