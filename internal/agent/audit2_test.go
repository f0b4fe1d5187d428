package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
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
