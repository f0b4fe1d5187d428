package agent

import (
	"context"
	"io/fs"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"

	"github.com/crankshaft/crankshaft/internal/api"
)

// otherUser is an account to run jobs as: "nobody", when the test runs as root.
func otherUser(t *testing.T) *user.User {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running a job as another user needs root")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no nobody user: %v", err)
	}
	return u
}

// searchableDir is a job root that every user can reach (t.TempDir's parent is private).
func searchableDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "agent-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestJobRunsAsUser: the uploaded source, the build and the process belong to the job's user,
// also when the build is restored from the cache (by root) on the second run.
func TestJobRunsAsUser(t *testing.T) {
	t.Parallel()
	u := otherUser(t)
	ta := newTestAgent(t, Options{Dir: searchableDir(t)})
	ctx := context.Background()
	job := api.Job{Executable: "sh", User: u.Username, WaitForExit: true,
		Source:       &api.Source{LocalFolder: "app", Hash: "sha256:user"},
		BuildCommand: `id -u > built-by && echo more >> uploaded.txt`,
		Arguments:    `-c 'echo "run-by=$(id -u) built-by=$(cat built-by) home=$HOME user=$USER" && touch ran'`}
	for run := range 2 {
		id, err := ta.c.Submit(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Upload(ctx, id, testutil.TarGz(t, testutil.TarFile("uploaded.txt", "from the controller\n", 0o644))); err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
		out, _ := ta.c.Output(ctx, id, 0)
		want := "run-by=" + u.Uid + " built-by=" + u.Uid + " home=" + u.HomeDir + " user=" + u.Username
		if st.State != api.StateStopped || !strings.Contains(out, want) || st.BuildReused != (run == 1) {
			t.Fatalf("run %d: %+v, output %q; want Stopped, %q, build reused %v", run, st, out, want, run == 1)
		}
		for _, name := range []string{"", "ran", "built-by", "uploaded.txt"} {
			fi, err := os.Stat(filepath.Join(ta.Dir(), id, name))
			if err != nil {
				t.Fatal(err)
			}
			if uid := fi.Sys().(*syscall.Stat_t).Uid; strconv.Itoa(int(uid)) != u.Uid {
				t.Errorf("run %d: %q belongs to uid %d, want %s", run, name, uid, u.Uid)
			}
		}
	}
}

// TestUserMustReachTheFolder: a job root the user cannot search fails the job, naming the folder.
func TestUserMustReachTheFolder(t *testing.T) {
	t.Parallel()
	u := otherUser(t)
	ta := newTestAgent(t, Options{}) // under t.TempDir(), whose parent is 0700
	st := ta.waitState(t, ta.submit(t, api.Job{Executable: "sh", Arguments: "-c true", User: u.Username}),
		api.StateFailed, api.StateStopped)
	if st.State != api.StateFailed || !strings.Contains(st.Error, "cannot reach the job folder") ||
		!strings.Contains(st.Error, "not searchable") {
		t.Fatalf("status %+v, want Failed naming the folder the user cannot search", st)
	}
}

// TestUserRefused: an unknown user, or another user on an agent that is not root, is a 400.
func TestUserRefused(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	users := []string{"no-such-user-xyz"}
	if os.Geteuid() != 0 {
		users = append(users, "root")
	}
	for _, name := range users {
		_, err := ta.c.Submit(ctx, api.Job{Executable: "sh", User: name})
		if statusCode(err) != http.StatusBadRequest || !strings.Contains(err.Error(), name) {
			t.Errorf("user %q: %v, want a 400 naming the user", name, err)
		}
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	id := ta.submit(t, api.Job{Executable: "sh", Arguments: `-c 'id -u'`, User: me.Username, WaitForExit: true})
	if st := ta.waitState(t, id, api.StateStopped, api.StateFailed); st.State != api.StateStopped {
		t.Fatalf("the agent's own user: %+v", st)
	}
	ta.waitOutput(t, id, me.Uid)
}

// TestCloneAsUser: a repository job run as another user is cloned, checked out and read (its
// commit) as that user. The third audit found `git rev-parse HEAD` run as the root agent in the
// clone the user owns: git refused it ("dubious ownership"), so every such job failed, and root
// read a .git/config the user's processes could change (issue 25, third audit, 4).
func TestCloneAsUser(t *testing.T) {
	t.Parallel()
	u := otherUser(t)
	src, commits := testutil.GitRepo(t, "#!/bin/sh\necho run-by=$(id -u)\n")
	repo := filepath.Join(searchableDir(t), "repo")
	if err := os.CopyFS(repo, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := filepath.WalkDir(repo, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	}); err != nil {
		t.Fatal(err)
	}
	ta := newTestAgent(t, Options{Dir: searchableDir(t)})
	id := ta.submit(t, api.Job{Executable: "sh", Arguments: "app.sh", User: u.Username, WaitForExit: true,
		Source: &api.Source{Repository: "file://" + repo, BranchOrCommit: "main"}})
	st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
	out, _ := ta.c.Output(context.Background(), id, 0)
	if st.State != api.StateStopped || !strings.Contains(out, "checked out "+commits[0]) || !strings.Contains(out, "run-by="+u.Uid) {
		t.Fatalf("%s: %s; output:\n%s\nwant Stopped, commit %s checked out and run by uid %s", st.State, st.Error, out, commits[0], u.Uid)
	}
}
