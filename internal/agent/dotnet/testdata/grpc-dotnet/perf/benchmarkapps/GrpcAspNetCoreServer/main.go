// Command GrpcAspNetCoreServer stands in for grpc-dotnet's benchmark server: it serves
// grpc.testing.BenchmarkService/UnaryCall over HTTP/2 cleartext (the standard library's unencrypted
// HTTP/2), on ASPNETCORE_URLS, answering each SimpleRequest with an empty SimpleResponse (a
// response_size of 0, as the h2load scenario's request asks), and prints ASP.NET Core's
// "Application started." once it listens. It takes grpc-dotnet's arguments (--LogLevel,
// --enableCertAuth, --protocol) and ignores them.
package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
)

func main() {
	u, err := url.Parse(strings.Split(os.Getenv("ASPNETCORE_URLS"), ";")[0])
	if err != nil || u.Port() == "" {
		fmt.Fprintf(os.Stderr, "GrpcAspNetCoreServer: ASPNETCORE_URLS %q: want scheme://host:port\n", os.Getenv("ASPNETCORE_URLS"))
		os.Exit(1)
	}
	host := u.Hostname()
	if host == "*" || host == "+" {
		host = ""
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /grpc.testing.BenchmarkService/UnaryCall", unary)
	srv := &http.Server{Handler: mux, Protocols: new(http.Protocols)}
	srv.Protocols.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", net.JoinHostPort(host, u.Port()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("Application started. Press Ctrl+C to shut down.")
	fmt.Println(srv.Serve(ln))
}

// unary reads one length-prefixed gRPC message and answers an empty one with grpc-status 0.
func unary(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
		http.Error(w, "want application/grpc", http.StatusUnsupportedMediaType)
		return
	}
	var prefix [5]byte
	if _, err := io.ReadFull(r.Body, prefix[:]); err != nil {
		http.Error(w, "no gRPC message", http.StatusBadRequest)
		return
	}
	if _, err := io.CopyN(io.Discard, r.Body, int64(binary.BigEndian.Uint32(prefix[1:]))); err != nil {
		http.Error(w, "short gRPC message", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/grpc")
	w.Header().Set("Trailer", "Grpc-Status")
	_, _ = w.Write([]byte{0, 0, 0, 0, 0}) // an empty SimpleResponse
	w.Header().Set("Grpc-Status", "0")
}
