// Command Benchmarks stands in for aspnet/Benchmarks' Benchmarks app: it takes the app's command
// line (--urls, --scenarios, --server, --kestrelTransport, --protocol, --nonInteractive), answers
// the plaintext and json scenarios' paths as the real app does, and prints ASP.NET Core's
// "Application started." once it listens.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
)

func main() {
	fs := flag.NewFlagSet("Benchmarks", flag.ExitOnError)
	urls := fs.String("urls", os.Getenv("ASPNETCORE_URLS"), "")
	scenarios := fs.String("scenarios", "plaintext", "")
	for _, ignored := range []string{"server", "kestrelTransport", "protocol", "nonInteractive", "database"} {
		fs.String(ignored, "", "")
	}
	_ = fs.Parse(os.Args[1:])
	u, err := url.Parse(strings.Split(*urls, ";")[0])
	if err != nil || u.Port() == "" {
		fmt.Fprintf(os.Stderr, "Benchmarks: --urls %q: want scheme://host:port\n", *urls)
		os.Exit(1)
	}
	host := u.Hostname()
	if host == "*" || host == "+" {
		host = ""
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/plaintext", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("Hello, World!"))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "Hello, World!"})
	})
	ln, err := net.Listen("tcp", net.JoinHostPort(host, u.Port()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("Scenarios: %s\nNow listening on: %s\nApplication started. Press Ctrl+C to shut down.\n", *scenarios, *urls)
	fmt.Println(http.Serve(ln, mux))
}
