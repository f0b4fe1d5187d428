package agent

import (
	"encoding/hex"
	"net"
	"os"
	"strconv"
	"strings"
)

// listenHost is the address a TCP socket of this machine's network namespace listens on at port,
// for connecting to it: the listening address itself, or the loopback one for a wildcard
// listener. ok is false when nothing listens there.
func listenHost(port int) (host string, ok bool) {
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			ip, p, ok := parseProcAddr(f[1])
			if !ok || p != port {
				continue
			}
			if ip.IsUnspecified() {
				if ip.To4() != nil {
					return "127.0.0.1", true
				}
				return "::1", true
			}
			return ip.String(), true
		}
	}
	return "", false
}

// parseProcAddr reads "0100007F:1F90": the address as the kernel stores it (each 32-bit word in
// host order, little-endian here), then the port in hex.
func parseProcAddr(s string) (net.IP, int, bool) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return nil, 0, false
	}
	raw, err := hex.DecodeString(a)
	port, perr := strconv.ParseUint(p, 16, 16)
	if err != nil || perr != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, 0, false
	}
	ip := make(net.IP, len(raw))
	for w := 0; w < len(raw); w += 4 {
		for i := range 4 {
			ip[w+i] = raw[w+3-i]
		}
	}
	return ip, int(port), true
}
