package docker

import (
	"slices"
	"strings"

	"github.com/moby/moby/api/types/container"
)

// keptCaps are the capabilities a job's container keeps of Docker's default set (docs/SECURITY.md
// says why for each): what common server images need to start and to drop privileges. The rest of
// the default set is dropped: NET_RAW (raw and packet sockets: a job sniffed crank's token on the
// host's network and replayed it, issue 41), MKNOD, FSETID, SETFCAP, SETPCAP, SYS_CHROOT and
// AUDIT_WRITE, which a web server does not use.
var keptCaps = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "NET_BIND_SERVICE", "SETGID", "SETUID"}

// capName is a capability as docker reads it: any case, with or without "CAP_".
func capName(c string) string {
	return strings.TrimPrefix(strings.ToUpper(c), "CAP_")
}

// withheld is the capabilities of capAdd a job's container does not keep by default.
func withheld(capAdd []string) []string {
	var out []string
	for _, c := range capAdd {
		if !slices.Contains(keptCaps, capName(c)) {
			out = append(out, capName(c))
		}
	}
	return out
}

// confine sets hc's capabilities and privileges: every capability dropped but keptCaps and what
// the job asked for (which hostAccess has allowed), no-new-privileges (a setuid binary in the
// image gains nothing) and the agent's seccomp profile (seccompOpt: no io_uring) unless the job
// asked for seccomp=unconfined. A privileged container gets the host as asked and is left as it is.
func confine(hc *container.HostConfig, ra runArgs) error {
	if hc.Privileged {
		hc.CapAdd = ra.capAdd
		return nil
	}
	hc.CapDrop = []string{"ALL"}
	hc.CapAdd = slices.Clone(keptCaps)
	for _, c := range ra.capAdd {
		if n := capName(c); !slices.Contains(hc.CapAdd, n) {
			hc.CapAdd = append(hc.CapAdd, n)
		}
	}
	hc.SecurityOpt = append(hc.SecurityOpt, "no-new-privileges")
	if ra.unconfined {
		hc.SecurityOpt = append(hc.SecurityOpt, seccompUnconfined)
		return nil
	}
	opt, err := seccompOpt()
	if err != nil {
		return err
	}
	hc.SecurityOpt = append(hc.SecurityOpt, opt)
	return nil
}
