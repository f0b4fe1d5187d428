package agent

import (
	"net"
	"net/netip"
	"sync"
)

// hostLimitListener closes at once a connection from a host (an IPv4 address, an IPv6 /64) that
// already holds perHost of them, so that one host trickling headers (slowloris) cannot take every
// connection the agent holds (Options.MaxConnections) and keep the controller out.
type hostLimitListener struct {
	net.Listener
	perHost int
	mu      sync.Mutex
	held    map[netip.Prefix]int
}

func limitPerHost(ln net.Listener, perHost int) net.Listener {
	return &hostLimitListener{Listener: ln, perHost: perHost, held: map[netip.Prefix]int{}}
}

func (l *hostLimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key, ok := hostKey(c.RemoteAddr())
		if !ok { // not an IP connection (a unix socket in tests): not counted
			return c, nil
		}
		l.mu.Lock()
		over := l.held[key] >= l.perHost
		if !over {
			l.held[key]++
		}
		l.mu.Unlock()
		if over {
			_ = c.Close()
			continue
		}
		return &hostConn{Conn: c, release: sync.OnceFunc(func() { l.release(key) })}, nil
	}
}

func (l *hostLimitListener) release(key netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[key]--; l.held[key] <= 0 {
		delete(l.held, key)
	}
}

// hostKey is the address a connection is counted under: the IPv4 address, or the IPv6 /64 (one
// machine is commonly given a whole /64).
func hostKey(a net.Addr) (netip.Prefix, bool) {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.Prefix{}, false
	}
	ip, ok := netip.AddrFromSlice(tcp.IP)
	if !ok {
		return netip.Prefix{}, false
	}
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, err := ip.Prefix(bits)
	return p, err == nil
}

type hostConn struct {
	net.Conn
	release func()
}

func (c *hostConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
