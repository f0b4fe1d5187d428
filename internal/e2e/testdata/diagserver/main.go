// diagserver is a server built to a known truth for the diagnosis tests:
//
//	--mode spin     each request burns --work of CPU: CPU-bound, on every core it is given
//	--mode serial   each request sleeps --work inside a one-slot channel: serialized, CPU idle
//	--mode stall    each request sleeps --work, all at once: throughput = connections / work
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"
)

func main() {
	port := flag.Int("port", 5000, "port on 127.0.0.1")
	mode := flag.String("mode", "spin", "spin, serial or stall")
	work := flag.Duration("work", time.Millisecond, "CPU (spin) or sleep (serial, stall) per request")
	flag.Parse()
	slot := make(chan struct{}, 1)
	var handle func()
	switch *mode {
	case "spin":
		handle = func() {
			for end := time.Now().Add(*work); time.Now().Before(end); {
			}
		}
	case "serial":
		handle = func() {
			slot <- struct{}{}
			time.Sleep(*work)
			<-slot
		}
	case "stall":
		handle = func() { time.Sleep(*work) }
	default:
		log.Fatalf("unknown --mode %q", *mode)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Application started.")
	log.Fatal(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		handle()
		_, _ = w.Write([]byte("ok"))
	})))
}
