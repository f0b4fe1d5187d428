package api

import (
	"encoding/hex"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// tcpListeners reads the listening TCP sockets from /proc/net/tcp and tcp6; ok is false when
// neither can be read.
func tcpListeners() (lns []listener, ok bool) {
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		ok = true
		for line := range strings.SplitSeq(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, port, good := procAddr(f[1])
			if good {
				lns = append(lns, listener{addr: addr, port: port, inode: f[9], uid: f[7], v6: file == "/proc/net/tcp6"})
			}
		}
	}
	return lns, ok
}

// procAddr reads "0100007F:1F90": the address as the kernel stores it (each 32-bit word in host
// order, little-endian here), then the port in hex.
func procAddr(s string) (netip.Addr, int, bool) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.Addr{}, 0, false
	}
	raw, err := hex.DecodeString(a)
	port, perr := strconv.ParseUint(p, 16, 16)
	if err != nil || perr != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.Addr{}, 0, false
	}
	ip := make([]byte, len(raw))
	for w := 0; w < len(raw); w += 4 {
		for i := range 4 {
			ip[w+i] = raw[w+3-i]
		}
	}
	addr, _ := netip.AddrFromSlice(ip)
	return addr.Unmap(), int(port), true
}
