// Package netguard is the HTTP client crank fetches what a configuration names with (http
// configurations and imports, buildFiles URLs): it does not connect to link-local addresses, where
// clouds answer with the machine's credentials (169.254.169.254, fd00:ec2::254,
// metadata.google.internal), directly or after a redirect.
package netguard

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// metadata are instance-metadata addresses outside the link-local ranges.
var metadata = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// Refused tells whether crank refuses to connect to addr, and why.
func Refused(addr netip.Addr) (string, bool) {
	addr = addr.Unmap()
	switch {
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "a link-local address (where clouds serve the machine's credentials)", true
	case addr.IsUnspecified():
		return "the unspecified address", true
	}
	for _, m := range metadata {
		if addr == m {
			return "a cloud's instance-metadata address", true
		}
	}
	return "", false
}

// control refuses a connection to a Refused address; it runs after name resolution, for every
// address tried, redirects included.
func control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: %s: %w", address, err)
	}
	if why, refused := Refused(ap.Addr()); refused {
		return fmt.Errorf("netguard: not connecting to %s: %s; a configuration may not make crank fetch it", ap.Addr(), why)
	}
	return nil
}

// Client is an HTTP client with timeout that refuses Refused addresses: at connection, and by
// the URL's host when a proxy (HTTPS_PROXY and the like) connects instead.
func Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: control}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = d.DialContext
	return &http.Client{Timeout: timeout, Transport: guarded{t}}
}

// guarded refuses a request whose host is a Refused address or a metadata name, before a proxy
// would resolve and connect to it.
type guarded struct{ next http.RoundTripper }

func (g guarded) RoundTrip(r *http.Request) (*http.Response, error) {
	host := strings.TrimSuffix(strings.ToLower(r.URL.Hostname()), ".")
	if host == "metadata.google.internal" || host == "metadata" {
		return nil, fmt.Errorf("netguard: not fetching %s: a cloud's instance-metadata name; a configuration may not make crank fetch it", host)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if why, refused := Refused(a); refused {
			return nil, fmt.Errorf("netguard: not connecting to %s: %s; a configuration may not make crank fetch it", a, why)
		}
	} else if numeric(host) {
		// 2852039166, 0xa9fea9fe, 0251.0376.0251.0376 and 169.254.43518 are 169.254.169.254 to
		// inet_aton, which a proxy may use; no name is all numbers.
		return nil, fmt.Errorf("netguard: not fetching %s: an IPv4 address in a form other than dotted decimal; a configuration may not make crank fetch it", host)
	}
	return g.next.RoundTrip(r)
}

// numeric tells whether host is made of numbers as inet_aton reads them (decimal, octal, 0x hex),
// up to four of them separated by dots.
func numeric(host string) bool {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return false
	}
	for _, p := range parts {
		digits := p
		if h, ok := strings.CutPrefix(p, "0x"); ok {
			digits = h
			if strings.Trim(digits, "0123456789abcdef") != "" {
				return false
			}
			continue
		}
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return false
		}
	}
	return true
}
