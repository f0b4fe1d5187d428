package agent

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// gitRepo makes a repository with two commits of app.sh and returns its folder and the first
// commit.
func gitRepo(t *testing.T) (dir, first string) {
	t.Helper()
	dir, commits := testutil.GitRepo(t, "#!/bin/sh\necho version one\n", "#!/bin/sh\necho version two\n")
	return dir, commits[0]
}

// TestCloneCheckoutBuildAndReuse clones a local repository at its first commit (file:// URL),
// builds it, and reuses the build for the same commit; the tip of main is another build.
func TestCloneCheckoutBuildAndReuse(t *testing.T) {
	t.Parallel()
	repo, first := gitRepo(t)
	ta := newTestAgent(t, Options{})
	run := func(rev string) (api.JobStatus, string) {
		id := ta.submit(t, api.Job{Executable: "./app", WaitForExit: true, BuildCommand: "cp app.sh app",
			Source: &api.Source{Repository: "file://" + repo, BranchOrCommit: rev}})
		st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
		out, _ := ta.c.Output(context.Background(), id, 0)
		if st.State != api.StateStopped {
			t.Fatalf("clone of %s: %s: %s\n%s", rev, st.State, st.Error, out)
		}
		return st, out
	}
	st, out := run(first)
	if !strings.Contains(out, "version one") || st.BuildReused || st.BuildTimeMs <= 0 {
		t.Errorf("first commit: %+v\n%s", st, out)
	}
	st, out = run(first)
	if !strings.Contains(out, "version one") || !st.BuildReused || st.BuildTimeMs != 0 {
		t.Errorf("same commit again: %+v\n%s", st, out)
	}
	st, out = run("main")
	if !strings.Contains(out, "version two") || st.BuildReused {
		t.Errorf("main: %+v\n%s", st, out)
	}
}

func TestRepositoryAndRevisionChecked(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	for _, src := range []api.Source{
		{Repository: "--upload-pack=touch /tmp/owned"},
		{Repository: "ext::sh -c touch% /tmp/owned"},
		{Repository: "ftp://example.com/repo.git"},
		{Repository: "relative/path"},
		{Repository: "https://example.com/a repo.git"},
		{Repository: "https://example.com/repo.git", BranchOrCommit: "--orphan=x"},
		{Repository: "https://example.com/repo.git", BranchOrCommit: "main\nx"},
	} {
		_, err := ta.c.Submit(context.Background(), api.Job{Executable: "./app", Source: &src})
		if statusCode(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "source.") {
			t.Errorf("source %+v: %v, want 400 naming the source key", src, err)
		}
	}
	for _, ok := range []string{"https://github.com/dotnet/crank.git", "git@github.com:dotnet/crank.git",
		"ssh://git@example.com/r.git", "file:///srv/repo", "/srv/repo", "git://example.com/r"} {
		if err := checkRepository(ok); err != nil {
			t.Errorf("checkRepository(%q) = %v", ok, err)
		}
	}
}

// TestCloneIgnoresJobGitEnvironment: a job's GIT_PROXY_COMMAND is not given to the clone of its
// git:// repository (it ran as the agent's user, around the ext::/fd:: ban) (issue 25, 8).
func TestCloneIgnoresJobGitEnvironment(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "proxied")
	proxy := filepath.Join(dir, "proxy.sh")
	if err := os.WriteFile(proxy, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ta := newTestAgent(t, Options{})
	id := ta.submit(t, api.Job{Name: "x", Executable: "/bin/true",
		Source:      &api.Source{Repository: "git://127.0.0.1:9/repo.git", BranchOrCommit: "main"},
		Environment: map[string]string{"GIT_PROXY_COMMAND": proxy}})
	ta.waitState(t, id, api.StateFailed)
	if _, err := os.Stat(marker); err == nil {
		t.Error("the job's GIT_PROXY_COMMAND ran during the clone")
	}
}
