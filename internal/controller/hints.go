package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/crankshaft/crankshaft/internal/api"
)

// What to do after the two errors a new user meets first: an agent that is not there, and a port
// another program holds.

// unreachableHint says how to get an agent at u when a connection to it failed (refused, timed
// out, no route, unknown host); "" for other errors (a bad token is not fixed by starting one).
func unreachableHint(u string, err error) string {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("; %s is not a known host name: check the address in the profile", dnsErr.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
	case errors.As(err, &opErr), errors.Is(err, context.DeadlineExceeded):
	default:
		return ""
	}
	start := "bin/crank-agent --url " + u
	if pu, perr := url.Parse(u); perr == nil && !isLoopback(pu.Hostname()) {
		// beyond loopback an agent refuses to listen without a token (docs/SECURITY.md)
		start = "CRANK_AGENT_TOKEN=... " + start
	}
	return fmt.Sprintf("; nothing answers there: start an agent on that machine (`make build`, then `%s`; "+
		"README.md, \"Agents on other machines\"), or leave the service without endpoints to run it on the agent embedded in crank", start)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// addrInUse finds the port of an "address already in use" error in a job's error and output: Go's
// "listen tcp 127.0.0.1:5000: bind: address already in use", nginx's "bind() to 0.0.0.0:80 failed
// (98: Address already in use)", Kestrel's "Failed to bind to address http://127.0.0.1:5000:
// address already in use".
var addrInUse = regexp.MustCompile(`(?i):(\d{1,5})\b[^\n]{0,40}address already in use`)

// portInUseHint names the variable that moves a port the job could not bind: the job variable
// whose value is that port (serverPort, metricsPort...); "" when the output shows no such error.
func portInUseHint(job api.Job, text string) string {
	m := addrInUse.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	port := m[1]
	var names []string
	for name, v := range job.Variables {
		if fmt.Sprint(v) == port {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return fmt.Sprintf("port %s is in use: another program listens there (`ss -ltnp 'sport = :%s'` names it); stop it or give the job another port", port, port)
	}
	moves := make([]string, len(names))
	for i, n := range names {
		moves[i] = fmt.Sprintf("--variable %s=NNNN", n)
	}
	return fmt.Sprintf("port %s is in use: another program listens there (`ss -ltnp 'sport = :%s'` names it); stop it, or pass %s to use another port",
		port, port, strings.Join(moves, " or "))
}
