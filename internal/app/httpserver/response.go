package httpserver

import (
	"net/http"
	"strconv"
)

// Response appends one HTTP/1.1 response to the connection's output buffer. A handler calls
// Write (or WriteString) exactly once.
type Response struct {
	c         *conn
	keepAlive bool
	head      bool
	http10    bool
	written   bool
}

func (w *Response) reset(r *Request) {
	w.keepAlive, w.head, w.http10, w.written = r.KeepAlive, r.IsHead(), r.HTTP10, false
}

// Close makes the server close the connection after this response.
func (w *Response) Close() { w.keepAlive = false }

// Write appends a complete response with the given status, content type and body.
func (w *Response) Write(status int, contentType string, body []byte) {
	w.header(status, contentType, len(body))
	if !w.head {
		w.c.out = append(w.c.out, body...)
	}
}

// WriteString is Write for a string body.
func (w *Response) WriteString(status int, contentType string, body string) {
	w.header(status, contentType, len(body))
	if !w.head {
		w.c.out = append(w.c.out, body...)
	}
}

func (w *Response) header(status int, contentType string, length int) {
	if w.written {
		panic("httpserver: response written twice")
	}
	w.written = true
	b := appendStatusLine(w.c.out, status)
	b = append(b, "Server: "...)
	b = append(b, w.c.srv.name...)
	if contentType != "" {
		b = append(b, "\r\nContent-Type: "...)
		b = append(b, contentType...)
	}
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(length), 10)
	b = append(b, "\r\n"...)
	b = append(b, w.c.srv.date.get()...)
	switch {
	case !w.keepAlive:
		b = append(b, "Connection: close\r\n"...)
		w.c.closeAfter = true
	case w.http10:
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	w.c.out = append(b, "\r\n"...)
}

func appendStatusLine(b []byte, status int) []byte {
	switch status {
	case 200:
		return append(b, "HTTP/1.1 200 OK\r\n"...)
	case 404:
		return append(b, "HTTP/1.1 404 Not Found\r\n"...)
	}
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = append(b, http.StatusText(status)...)
	return append(b, "\r\n"...)
}
