package agent

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestOwnIgnoresSwappedFolders: giving the job folder to the job's user (after its build ran, whose
// processes may still run) never follows a folder the job swapped for a link: a second audit had a
// `user: nobody` build leave a process that replaced its folders with links to a root folder while
// the agent walked, and the agent (root) gave that folder's file to nobody (an /etc/shadow of its
// own). The race is run many times; the walk must never reach the file outside.
func TestOwnIgnoresSwappedFolders(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root")
	}
	const nobody = 65534
	outside := t.TempDir()
	target := filepath.Join(outside, "target")
	if err := os.WriteFile(target, []byte("root's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(searchableDir(t), "job")
	const folders = 20
	for i := range folders {
		if err := os.MkdirAll(filepath.Join(dir, "d"+strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "d"+strconv.Itoa(i), "target"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := &jobUser{name: "nobody", cred: &syscall.Credential{Uid: nobody, Gid: nobody}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the job's leftover process: each folder becomes a link outside, then back
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			d := filepath.Join(dir, "d"+strconv.Itoa(n%folders))
			if os.Rename(d, d+".real") == nil {
				_ = os.Symlink(outside, d)
				_ = os.Remove(d)
				_ = os.Rename(d+".real", d)
			}
		}
	})
	failed := 0
	for range 300 {
		if err := u.own(dir); err != nil {
			failed++ // a folder that vanished mid-walk fails the walk: that is fine, reaching outside is not
		}
	}
	close(stop)
	wg.Wait()
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if failed == 300 {
		t.Fatal("every walk failed: the race was never run")
	}
	if uid := fi.Sys().(*syscall.Stat_t).Uid; uid != 0 {
		t.Errorf("a file outside the job folder was given to uid %d through a swapped folder (%d of 300 walks failed)", uid, failed)
	}
}

// TestBuildNotReusedAcrossUsers: a build made as one user is not reused by a job of another user
// with the same source, command and environment: the build read its user's home (a Go module
// cache, ~/.config/go/env), which anyone able to run jobs as that user may have prepared, and the
// second job (root's) ran what came out (second audit of issue 25).
func TestBuildNotReusedAcrossUsers(t *testing.T) {
	u := otherUser(t)
	ta := newTestAgent(t, Options{Dir: searchableDir(t)})
	for i, name := range []string{u.Username, "", u.Username} {
		job := api.Job{Executable: "sh", Arguments: "-c true", User: name, WaitForExit: true,
			Source: &api.Source{LocalFolder: "app"}, BuildCommand: "echo built > out"}
		id, err := ta.c.Submit(t.Context(), job)
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Upload(t.Context(), id, testutil.TarGz(t, testutil.TarFile("main.go", "package main\n", 0o644))); err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Start(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
		if want := i == 2; st.State != api.StateStopped || st.BuildReused != want {
			t.Errorf("job %d (user %q): %+v, want Stopped with build reused %v", i, name, st, want)
		}
	}
}

// TestJobFolderPrivateAfterFailedUpload: a failed upload empties the job folder for a retry; the
// folder made again is 0700 like the first (it was 0755: another local user read the retried
// upload's files).
func TestJobFolderPrivateAfterFailedUpload(t *testing.T) {
	ta := newTestAgent(t, Options{})
	id, err := ta.c.Submit(t.Context(), api.Job{Name: "x", Executable: "/bin/true", Source: &api.Source{LocalFolder: "src"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ta.c.Upload(t.Context(), id, testutil.TarGz(t, testutil.TarFile("../escape", "x", 0o644))); statusCode(err) != http.StatusBadRequest {
		t.Fatalf("upload of an escaping entry: %v, want 400", err)
	}
	fi, err := os.Stat(filepath.Join(ta.opts.Dir, id))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("job folder after a failed upload: mode %s, want 0700", fi.Mode().Perm())
	}
}
