// Command helloserver is a minimal raw-TCP HTTP/1.1 "Hello, World!" server for measuring load
// generators: it answers every GET (requests without a body) on a connection, writing the
// responses to all the requests one read brought in a single write, as fast servers do.
//
//	helloserver -addr 127.0.0.1:38182
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
)

const response = "HTTP/1.1 200 OK\r\nServer: helloserver\r\nContent-Type: text/plain\r\n" +
	"Content-Length: 13\r\n\r\nHello, World!"

func main() {
	addr := flag.String("addr", "127.0.0.1:38182", "loopback address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		slog.Error("listen", "addr", *addr, "err", err)
		os.Exit(1)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			slog.Error("accept", "err", err)
			os.Exit(1)
		}
		go serve(c)
	}
}

func serve(c net.Conn) {
	defer c.Close()
	in := make([]byte, 64<<10)
	out := make([]byte, 0, 64<<10)
	end := []byte("\r\n\r\n")
	have := 0
	for {
		n, err := c.Read(in[have:])
		if err != nil {
			return
		}
		have += n
		out = out[:0]
		start := 0
		for {
			i := bytes.Index(in[start:have], end)
			if i < 0 {
				break
			}
			start += i + len(end)
			out = append(out, response...)
		}
		have = copy(in, in[start:have])
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return
			}
		}
	}
}
