// Package bisect finds the commit that made a figure worse (crank bisect): it benchmarks the
// commits between a good and a bad revision of the application's git repository, halving the range
// as git bisect does, each commit judged against the good one with crank compare's test, and
// skips commits that do not build.
package bisect

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Commit is one candidate: its full hash and subject line.
type Commit struct {
	SHA     string `json:"sha"`
	Subject string `json:"subject"`
}

// Short is the commit's first 10 hex digits.
func (c Commit) Short() string { return c.SHA[:min(10, len(c.SHA))] }

// Repo is a git work tree (or bare repository) on this machine.
type Repo struct{ Dir string }

func (r Repo) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.Dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// Resolve is the commit a revision names. A revision starting with "-" is refused (git would read
// `--good --output=/p` as an option and write that file: issue 41, MEDIUM 10); what reaches git
// after --end-of-options is read as a revision whatever it is.
func (r Repo) Resolve(ctx context.Context, rev string) (Commit, error) {
	if strings.HasPrefix(rev, "-") {
		return Commit{}, fmt.Errorf("revision %q: a revision does not start with \"-\" (git would read it as an option)", rev)
	}
	out, err := r.git(ctx, "log", "-1", "--format=%H%x00%s", "--end-of-options", rev+"^{commit}", "--")
	if err != nil {
		return Commit{}, err
	}
	sha, subject, _ := strings.Cut(out, "\x00")
	return Commit{SHA: sha, Subject: subject}, nil
}

// Dirty says whether the work tree differs from its HEAD (`git status --porcelain` lists anything:
// a change, a file git does not track and does not ignore).
func (r Repo) Dirty(ctx context.Context) (bool, error) {
	out, err := r.git(ctx, "status", "--porcelain")
	return out != "", err
}

// Range is the commits after good up to bad, oldest first, on the ancestry path from good to bad
// (as git bisect considers them). good must be an ancestor of bad.
func (r Repo) Range(ctx context.Context, good, bad Commit) ([]Commit, error) {
	if _, err := r.git(ctx, "merge-base", "--is-ancestor", "--end-of-options", good.SHA, bad.SHA); err != nil {
		return nil, fmt.Errorf("--good %s is not an ancestor of --bad %s", good.Short(), bad.Short())
	}
	out, err := r.git(ctx, "log", "--reverse", "--ancestry-path", "--format=%H%x00%s", "--end-of-options", good.SHA+".."+bad.SHA, "--")
	if err != nil {
		return nil, err
	}
	var cs []Commit
	for _, l := range strings.Split(out, "\n") {
		if sha, subject, ok := strings.Cut(l, "\x00"); ok {
			cs = append(cs, Commit{SHA: sha, Subject: subject})
		}
	}
	return cs, nil
}

// Export writes the commit's tree into dir (created), as a clean copy: no .git, nothing untracked.
func (r Repo) Export(ctx context.Context, c Commit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "git", "-C", r.Dir, "archive", "--format=tar", "--end-of-options", c.SHA)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var errb bytes.Buffer
	archive.Stderr, untar.Stderr = &errb, &errb
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		_ = untar.Wait()
		return fmt.Errorf("git archive %s: %v: %s", c.Short(), err, errb.String())
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("extracting %s: %v: %s", c.Short(), err, errb.String())
	}
	return nil
}

// Folder is the folder rel inside dir, a tree Export wrote, refused when a component on the way
// (rel itself included) is a symbolic link or not a folder: the tree is the commit author's, and
// a commit that turned a parent of source.localFolder into a link to a folder outside the
// repository had crank pack and upload that folder's files (issue 41, MEDIUM 10).
func Folder(dir, rel string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	rel = filepath.Clean(rel)
	if rel == "." {
		return dir, nil
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		fi, err := root.Lstat(p)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s in this commit: %w", p, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return "", fmt.Errorf("%s is a symbolic link in this commit: bisect packs only folders inside the repository", p)
		case !fi.IsDir():
			return "", fmt.Errorf("%s is not a folder in this commit", p)
		}
	}
	return filepath.Join(dir, rel), nil
}

// Toplevel is the work tree holding dir, "" when dir is in none.
func Toplevel(ctx context.Context, dir string) string {
	out, err := Repo{Dir: dir}.git(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	return out
}
