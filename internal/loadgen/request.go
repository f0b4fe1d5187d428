package loadgen

import (
	"bytes"
	"strconv"
	"strings"
)

// buildRequest returns the bytes of one request. A Host header in o.Headers replaces the default;
// a body gets a Content-Length unless the headers already have one.
func buildRequest(o Options, t target) []byte {
	var b bytes.Buffer
	b.WriteString(o.Method + " " + t.requestURI + " HTTP/1.1\r\n")
	hasHost, hasLength := false, false
	for _, h := range o.Headers {
		name, value, _ := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		hasHost = hasHost || strings.EqualFold(name, "host")
		hasLength = hasLength || strings.EqualFold(name, "content-length")
		b.WriteString(name + ": " + strings.TrimSpace(value) + "\r\n")
	}
	if !hasHost {
		b.WriteString("Host: " + t.host + "\r\n")
	}
	if !hasLength && (len(o.Body) > 0 || o.Method == "POST" || o.Method == "PUT") {
		b.WriteString("Content-Length: " + strconv.Itoa(len(o.Body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(o.Body)
	return b.Bytes()
}

// repeatRequest returns n copies of req back to back: a connection writes a prefix of it to send
// k <= n requests in one write.
func repeatRequest(req []byte, n int) []byte {
	return bytes.Repeat(req, n)
}
