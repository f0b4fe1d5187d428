package docker

import (
	"strings"
	"testing"

	"github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// TestSeccompProfileRefusesIOURing: the profile confine passes, read back as the engine reads it
// for a container holding keptCaps, refuses by default with EPERM and allows no io_uring system
// call, while a server's usual calls (accept4, epoll_wait, sendmsg) stay allowed.
func TestSeccompProfileRefusesIOURing(t *testing.T) {
	opt, err := seccompOpt()
	if err != nil {
		t.Fatal(err)
	}
	body, ok := strings.CutPrefix(opt, "seccomp=")
	if !ok {
		t.Fatalf("option %.40q: want seccomp=PROFILE", opt)
	}
	caps := make([]string, len(keptCaps))
	for i, c := range keptCaps {
		caps[i] = "CAP_" + c
	}
	spec := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{Bounding: caps}}}
	p, err := seccomp.LoadProfile(body, spec)
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultAction != specs.ActErrno || p.DefaultErrnoRet == nil || *p.DefaultErrnoRet != 1 {
		t.Errorf("default action %s errno %v: want %s with EPERM (1)", p.DefaultAction, p.DefaultErrnoRet, specs.ActErrno)
	}
	allowed := map[string]bool{}
	for _, s := range p.Syscalls {
		for _, n := range s.Names {
			if s.Action == specs.ActAllow {
				allowed[n] = true
			}
			if strings.HasPrefix(n, "io_uring") {
				t.Errorf("rule %s for %s: want no io_uring rule", s.Action, n)
			}
		}
	}
	for _, n := range []string{"accept4", "epoll_wait", "sendmsg", "setuid"} {
		if !allowed[n] {
			t.Errorf("%s: not allowed, want it allowed", n)
		}
	}
}
