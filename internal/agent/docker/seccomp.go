package docker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/moby/profiles/seccomp"
)

// seccompUnconfined is the one --security-opt a job may ask for (as host access): no seccomp
// filter, io_uring included.
const seccompUnconfined = "seccomp=unconfined"

// seccompOpt is the security option that puts a job's container under the seccomp profile of
// Docker 25 and later (github.com/moby/profiles/seccomp), whatever the engine's version: older
// engines (20.10 here) let a container call io_uring_setup, the kernel interface behind most of
// the recent container escapes (moby/moby#46762), and a benchmarked image is untrusted code. Any
// io_uring system call a later version of the profile might allow is taken out too, so that the
// refusal does not depend on the module's version. A server in the container that would use
// io_uring gets EPERM and falls back (the apps of apps/ then say "io epoll").
func seccompOpt() (string, error) {
	p := seccomp.DefaultProfile()
	for _, s := range p.Syscalls {
		s.Names = slices.DeleteFunc(s.Names, func(n string) bool { return strings.HasPrefix(n, "io_uring") })
	}
	p.Syscalls = slices.DeleteFunc(p.Syscalls, func(s *seccomp.Syscall) bool { return len(s.Names) == 0 })
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("seccomp profile: %w", err)
	}
	return "seccomp=" + string(b), nil
}
