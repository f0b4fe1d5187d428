package docker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
)

// runArgs are the `docker run` options a Docker job's arguments may hold (crank passes its
// arguments to docker create). Anything else is refused at submission, so that nothing is
// silently dropped.
type runArgs struct {
	extraHosts []string
	env        []string
	network    string
	privileged bool
	capAdd     []string
	ipc        string
	// unconfined: --security-opt seccomp=unconfined, the only security option passed on.
	unconfined bool
}

// runOptions lists the options parseRunArgs knows, for its error message.
const runOptions = "--add-host, -e/--env, --network/--net, --privileged, --cap-add, --ipc, --security-opt " + seccompUnconfined

// parseRunArgs reads a Docker job's arguments: "--name value" and "--name=value" forms, values
// quoted as in a shell.
func parseRunArgs(s string) (runArgs, error) {
	var ra runArgs
	words, err := proc.Split(s)
	if err != nil {
		return ra, fmt.Errorf("arguments: %w", err)
	}
	for i := 0; i < len(words); i++ {
		name, value, hasValue := strings.Cut(words[i], "=")
		if name == "--privileged" {
			on, err := strconv.ParseBool(value) // docker's own reading of --privileged=VALUE
			if !hasValue {
				on, err = true, nil
			}
			if err != nil {
				return ra, fmt.Errorf("arguments: %q: want --privileged, --privileged=true or --privileged=false", words[i])
			}
			ra.privileged = on
			continue
		}
		switch name {
		case "--add-host", "-e", "--env", "--network", "--net", "--cap-add", "--ipc", "--security-opt":
		default:
			return ra, fmt.Errorf("arguments: %q is not a docker run option this agent passes on (it knows %s)", words[i], runOptions)
		}
		if !hasValue {
			if i+1 >= len(words) {
				return ra, fmt.Errorf("arguments: %s needs a value", name)
			}
			i++
			value = words[i]
		}
		switch name {
		case "--add-host":
			ra.extraHosts = append(ra.extraHosts, value)
		case "-e", "--env":
			ra.env = append(ra.env, value)
		case "--network", "--net":
			ra.network = value
		case "--cap-add":
			ra.capAdd = append(ra.capAdd, value)
		case "--ipc":
			ra.ipc = value
		case "--security-opt":
			// Any other option would loosen (apparmor=unconfined, label=disable) or replace
			// what confine sets, or name a file on the agent's machine (seccomp=PATH).
			if !strings.EqualFold(strings.ReplaceAll(value, ":", "="), seccompUnconfined) {
				return ra, fmt.Errorf("arguments: --security-opt %s: this agent passes on only --security-opt %s (its jobs' containers otherwise run under its seccomp profile, without io_uring, and no-new-privileges)", value, seccompUnconfined)
			}
			ra.unconfined = true
		}
	}
	return ra, nil
}

// hostAccess refuses the options that give a container the host, unless the agent was started
// with --allow-privileged-docker: --privileged, any --cap-add of a capability the container does
// not keep anyway (DAC_READ_SEARCH alone reads every file of the host through open_by_handle_at;
// NET_RAW sniffs crank's requests), --ipc=host or another container's,
// --network=container:NAME (another job's network namespace) and --security-opt
// seccomp=unconfined (io_uring and the rest of the kernel's least-guarded interfaces).
func (ra runArgs) hostAccess(allowed bool) error {
	if allowed {
		return nil
	}
	var asked []string
	if ra.privileged {
		asked = append(asked, "--privileged")
	}
	caps := withheld(ra.capAdd)
	for _, c := range caps {
		asked = append(asked, "--cap-add="+c)
	}
	// Compared ignoring case, and any namespace path (ns:/proc/1/ns/net) counts: what the engine
	// would refuse as a spelling it does not know is refused here before it is asked.
	ipc, network := strings.ToLower(ra.ipc), strings.ToLower(ra.network)
	if ipc == "host" || strings.HasPrefix(ipc, "container:") || strings.HasPrefix(ipc, "ns:") {
		asked = append(asked, "--ipc="+ra.ipc)
	}
	if strings.HasPrefix(network, "container:") || strings.HasPrefix(network, "ns:") {
		asked = append(asked, "--network="+ra.network)
	}
	if ra.unconfined {
		asked = append(asked, "--security-opt="+seccompUnconfined)
	}
	if len(asked) == 0 {
		return nil
	}
	err := fmt.Errorf("arguments: %s would give the job's container the host (root on this machine); this agent refuses it unless started with --allow-privileged-docker", strings.Join(asked, " "))
	if len(caps) > 0 {
		err = fmt.Errorf("%w (its jobs' containers keep only the capabilities %s: %s withheld)", err,
			strings.Join(keptCaps, ", "), strings.Join(caps, ", "))
	}
	return err
}
