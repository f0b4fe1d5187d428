package agent

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// jobUser is the account a job's build and processes run as (its `user` key) when that is not
// the agent's own. A nil *jobUser means the agent's own account; its methods then change nothing.
type jobUser struct {
	name string
	home string
	cred *syscall.Credential
}

// lookupUser resolves a job's `user`. Empty, or the agent's own user, gives nil. Another user
// needs an agent running as root: the processes start as root and switch in the child.
func lookupUser(name string) (*jobUser, error) {
	if name == "" {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("user %q: %w", name, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %q: uid %q: %w", name, u.Uid, err)
	}
	if int(uid) == os.Geteuid() {
		return nil, nil
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("user %q: this agent runs as uid %d; only an agent running as root runs jobs as another user", name, os.Geteuid())
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %q: gid %q: %w", name, u.Gid, err)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	ids, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("user %q: groups: %w", name, err)
	}
	for _, id := range ids {
		if g, err := strconv.ParseUint(id, 10, 32); err == nil {
			cred.Groups = append(cred.Groups, uint32(g))
		}
	}
	return &jobUser{name: name, home: u.HomeDir, cred: cred}, nil
}

// credential is what proc.Spec.Credential takes (nil: the agent's own).
func (u *jobUser) credential() *syscall.Credential {
	if u == nil {
		return nil
	}
	return u.cred
}

// keyName is the user in a build's cache key: its uid ("" the agent's own).
func (u *jobUser) keyName() string {
	if u == nil {
		return ""
	}
	return strconv.FormatUint(uint64(u.cred.Uid), 10)
}

// environ sets HOME, USER and LOGNAME to the user's, as su and runuser do.
func (u *jobUser) environ(env []string) []string {
	if u == nil {
		return env
	}
	return append(env, "HOME="+u.home, "USER="+u.name, "LOGNAME="+u.name)
}

// own gives the job folder and everything in it to the user, after checking the user can reach
// it (every folder above it must be searchable by the user). The walk goes through an os.Root: the
// job's processes (a build's leftovers) may swap a folder for a link while it runs, and a path
// walk would then give a file outside the folder to the user (TestOwnIgnoresSwappedFolders).
func (u *jobUser) own(dir string) error {
	if u == nil {
		return nil
	}
	if err := u.reach(filepath.Dir(dir)); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("user %q: job folder: %w", u.name, err)
	}
	defer root.Close()
	uid, gid := int(u.cred.Uid), int(u.cred.Gid)
	err = fs.WalkDir(root.FS(), ".", func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return root.Lchown(p, uid, gid)
	})
	if err != nil {
		return fmt.Errorf("user %q: job folder: %w", u.name, err)
	}
	return nil
}

// reach checks that dir and every folder above it let the user through.
func (u *jobUser) reach(dir string) error {
	for {
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("user %q: %w", u.name, err)
		}
		if !u.canSearch(fi) {
			return fmt.Errorf("user %q cannot reach the job folder: %s (mode %s) is not searchable by it", u.name, dir, fi.Mode().Perm())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// canSearch applies the owner, group or other execute bit that the user falls under.
func (u *jobUser) canSearch(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true // cannot tell: let the build say
	}
	perm := fi.Mode().Perm()
	switch {
	case st.Uid == u.cred.Uid:
		return perm&0o100 != 0
	case st.Gid == u.cred.Gid || slices.Contains(u.cred.Groups, st.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}
