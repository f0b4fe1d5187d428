package httpserver

import (
	"net/http"
	"strconv"
)

// Response appends one HTTP/1.1 response to an output buffer. A handler calls Write (or
// WriteString) exactly once.
type Response struct {
	srv       *Server
	out       *[]byte
	keepAlive bool
	head      bool
	http10    bool
	written   bool
	closed    bool // the response said Connection: close
}

func (w *Response) reset(r *Request) {
	w.keepAlive, w.head, w.http10 = r.KeepAlive, r.IsHead(), r.HTTP10
	w.written, w.closed = false, false
}

// Close makes the server close the connection after this response.
func (w *Response) Close() { w.keepAlive = false }

// Write appends a complete response with the given status, content type and body.
func (w *Response) Write(status int, contentType string, body []byte) {
	w.header(status, contentType, len(body))
	if !w.head {
		*w.out = append(*w.out, body...)
	}
}

// WriteString is Write for a string body.
func (w *Response) WriteString(status int, contentType string, body string) {
	w.header(status, contentType, len(body))
	if !w.head {
		*w.out = append(*w.out, body...)
	}
}

func (w *Response) header(status int, contentType string, length int) {
	if w.written {
		panic("httpserver: response written twice")
	}
	w.written = true
	b := appendStatusLine(*w.out, status)
	b = append(b, "Server: "...)
	b = append(b, w.srv.name...)
	if contentType != "" {
		b = append(b, "\r\nContent-Type: "...)
		b = append(b, contentType...)
	}
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(length), 10)
	b = append(b, "\r\n"...)
	b = append(b, w.srv.date.get()...)
	switch {
	case !w.keepAlive:
		b = append(b, "Connection: close\r\n"...)
		w.closed = true
	case w.http10:
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	*w.out = append(b, "\r\n"...)
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
