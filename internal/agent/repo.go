package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
)

// cloneTimeout bounds a clone and checkout.
const cloneTimeout = 10 * time.Minute

// gitProtocols are the only transports git may use for a job's repository (GIT_ALLOW_PROTOCOL):
// not ext:: or fd::, which run commands, nor any remote helper.
const gitProtocols = "https:http:ssh:git:file"

// checkRepository accepts https://, http://, ssh://, git:// and file:// URLs, scp-like
// user@host:path, and absolute paths on the agent's machine. It refuses what git would read as an
// option (a leading '-'), transport-helper syntax (ext::cmd), other schemes, relative paths, and
// white space or control characters.
func checkRepository(repo string) error {
	if err := plainArgument(repo, 2048); err != nil {
		return fmt.Errorf("source.repository %q: %w", repo, err)
	}
	if strings.Contains(repo, "::") {
		return fmt.Errorf("source.repository %q: transport helpers (name::address) are not accepted", repo)
	}
	if scheme, _, ok := strings.Cut(repo, "://"); ok {
		switch strings.ToLower(scheme) {
		case "https", "http", "ssh", "git", "file":
			return nil
		}
		return fmt.Errorf("source.repository %q: scheme %q is not accepted (https, http, ssh, git, file)", repo, scheme)
	}
	if strings.HasPrefix(repo, "/") {
		return nil
	}
	if host, _, ok := strings.Cut(repo, ":"); ok && host != "" && !strings.Contains(host, "/") {
		return nil // scp-like: [user@]host:path
	}
	return fmt.Errorf("source.repository %q: want a URL, user@host:path, or an absolute path", repo)
}

// checkRevision accepts a branch, tag or commit name that git cannot read as an option.
func checkRevision(rev string) error {
	if rev == "" {
		return nil
	}
	if err := plainArgument(rev, 256); err != nil {
		return fmt.Errorf("source.branchOrCommit %q: %w", rev, err)
	}
	return nil
}

// plainArgument refuses what could change a command line's meaning.
func plainArgument(s string, maxLen int) error {
	switch {
	case s == "":
		return fmt.Errorf("empty")
	case len(s) > maxLen:
		return fmt.Errorf("longer than %d bytes", maxLen)
	case strings.HasPrefix(s, "-"):
		return fmt.Errorf("starts with '-'")
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("holds white space or control characters")
	}
	return nil
}

// gitEnv is the job's environment for git: no prompt (a clone needing a password fails instead of
// hanging), only the accepted transports, ssh in batch mode unless the machine configures ssh.
//
// The job's own environmentVariables are not in it: a job's GIT_PROXY_COMMAND (or GIT_SSH,
// GIT_CONFIG_*...) would run a command as the agent, around the protocol ban.
func (j *job) gitEnv() []string {
	env := append(j.user.environ(withoutSecrets(os.Environ())), "GIT_TERMINAL_PROMPT=0", "GIT_ALLOW_PROTOCOL="+gitProtocols)
	if os.Getenv("GIT_SSH_COMMAND") == "" {
		env = append(env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	return env
}

// cloneSuffix names the folder beside a job's folder where its repositories are cloned before
// they are moved into place.
const cloneSuffix = ".clone"

// clone fetches a repository into dest inside the job's folder ("." the folder itself), checks
// out rev, and returns the commit checked out. git runs without a shell (the URL is an argument
// after "--") in a folder of its own beside the job's folder, so no repository in the job's other
// sources is read; the clone is then moved into place (placeClone). Submodules are not fetched
// and nothing is hard-linked to a local repository's files.
func (a *Agent) clone(ctx context.Context, j *job, repo, rev, dest string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, cloneTimeout)
	defer cancel()
	git, err := proc.LookPath("git", j.dir)
	if err != nil {
		return "", fmt.Errorf("job %s: source %s: %w", j.id, repo, err)
	}
	staging := j.dir + cloneSuffix
	if err := os.RemoveAll(staging); err != nil {
		return "", fmt.Errorf("job %s: clone: %w", j.id, err)
	}
	if err := os.Mkdir(staging, 0o700); err != nil { // private, as the job's folder (a URL's password in .git/config)
		return "", fmt.Errorf("job %s: clone: %w", j.id, err)
	}
	defer os.RemoveAll(staging)
	if err := j.user.own(staging); err != nil { // git runs as the job's user
		return "", fmt.Errorf("job %s: clone: %w", j.id, err)
	}
	spec := proc.Spec{Path: git, Args: []string{"clone", "--quiet", "--no-hardlinks", "--", repo, "."},
		Dir: staging, Env: j.gitEnv(), Stdout: j.out, Stderr: j.out, Credential: j.user.credential()}
	into := ""
	if dest != "." {
		into = " into " + dest
	}
	j.out.WriteString("$ git clone " + repo + into + "\n")
	if err := runtime.Step(ctx, j.rj, "git clone "+repo, spec); err != nil {
		return "", err
	}
	if rev != "" {
		spec.Args = []string{"checkout", "--quiet", rev, "--"}
		if err := runtime.Step(ctx, j.rj, "git checkout "+rev, spec); err != nil {
			return "", err
		}
	}
	// As the job's user too: root running git in a clone the user owns is refused by git
	// ("dubious ownership"), and would read a .git/config the user's processes may have changed.
	var head bytes.Buffer
	spec.Args, spec.Stdout = []string{"rev-parse", "HEAD"}, &head
	if err := runtime.Step(ctx, j.rj, "git rev-parse HEAD", spec); err != nil {
		return "", err
	}
	commit := strings.TrimSpace(head.String())
	if err := placeClone(j.dir, staging, dest); err != nil {
		return "", fmt.Errorf("job %s: clone of %s%s: %w", j.id, repo, into, err)
	}
	j.out.WriteString("checked out " + commit + into + "\n")
	j.log.Info("source cloned", "repository", repo, "commit", commit, "dest", dest)
	return commit, nil
}
