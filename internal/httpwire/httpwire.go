// Package httpwire holds what the apps' HTTP/1.1 server (internal/app/httpserver) and the load
// generator's client (internal/loadgen) both need to read the wire: small, allocation-free helpers
// on the bytes as they arrived.
package httpwire

// TrimOWS drops the optional whitespace (spaces and tabs, RFC 9110 5.6.3) around a field value.
func TrimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
