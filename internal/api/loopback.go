package api

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Resolver looks a host name up (net.DefaultResolver is one).
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// listener is a listening TCP socket of this machine's network namespace.
type listener struct {
	addr  netip.Addr // the listening address (unspecified for a wildcard)
	port  int
	inode string // the socket's identity: two entries with one inode are one socket
	uid   string // the socket's owner
	v6    bool   // from /proc/net/tcp6 (a wildcard there may take IPv4 too)
}

// LoopbackAddr is the address (IP and port) crank must dial for the agent at agentURL when its
// host is a name that resolves to several loopback addresses (localhost: 127.0.0.1 and ::1): the
// one where a socket listens on the port, so that the name is not resolved again at each
// connection to whichever address comes first. When sockets other than one listen on two of
// them, one may be another local user's (or a job's, on the host's network) waiting for crank's
// requests, and it is an error naming both. "" (dial as usual) for an IP, a name resolving to one
// address or to any address not loopback, or where the listening sockets cannot be read.
func LoopbackAddr(ctx context.Context, agentURL string, r Resolver) (string, error) {
	u, err := url.Parse(agentURL)
	if err != nil {
		return "", nil // NewClient says what is wrong with the URL
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, err := strconv.Atoi(port)
	if err != nil || host == "" {
		return "", nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return "", nil
	}
	addrs, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		return "", nil // dialling fails as it would have, naming the agent
	}
	var ips []netip.Addr
	for _, a := range addrs {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok || a.Zone != "" {
			return "", nil
		}
		ip = ip.Unmap()
		if !ip.IsLoopback() {
			return "", nil
		}
		if !slices.Contains(ips, ip) {
			ips = append(ips, ip)
		}
	}
	if len(ips) < 2 {
		return "", nil
	}
	lns, ok := tcpListeners()
	if !ok {
		return "", nil
	}
	var served []netip.Addr
	var owners, sockets []string
	for _, ip := range ips {
		for _, l := range lns {
			if l.port == p && listensOn(l, ip) {
				served, owners = append(served, ip), append(owners, l.uid)
				if !slices.Contains(sockets, l.inode) {
					sockets = append(sockets, l.inode)
				}
				break
			}
		}
	}
	switch {
	case len(served) == 0:
		return "", nil // nothing listens: dialling fails, naming the agent
	case len(sockets) > 1:
		names := make([]string, len(served))
		for i, ip := range served {
			names[i] = fmt.Sprintf("%s (uid %s)", net.JoinHostPort(ip.String(), port), owners[i])
		}
		return "", fmt.Errorf("agent %s: %s resolves to loopback addresses where different programs listen on port %s: %s; one may be another local user's or a job's, waiting for crank's requests: name the agent by the address its crank-agent listens on instead of %s",
			agentURL, host, port, strings.Join(names, ", "), host)
	}
	return net.JoinHostPort(served[0].String(), port), nil
}

// listensOn tells whether l takes connections to ip.
func listensOn(l listener, ip netip.Addr) bool {
	if l.addr.IsUnspecified() {
		return ip.Is4() == l.addr.Is4() || (l.v6 && ip.Is4())
	}
	return l.addr == ip
}
