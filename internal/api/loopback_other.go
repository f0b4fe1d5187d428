//go:build !linux

package api

// tcpListeners: the listening sockets are not read here (no /proc/net/tcp).
func tcpListeners() ([]listener, bool) { return nil, false }
