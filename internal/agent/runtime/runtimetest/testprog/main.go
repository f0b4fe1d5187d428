// Command testprog is the program the runtime conformance suite runs (built static, so that a
// container FROM scratch runs it too). Its first argument says what it does:
//
//	serve PORT   listens on 127.0.0.1:PORT, prints "ready"; SIGTERM: prints "terminated", exits 3;
//	             SIGINT: prints "interrupted", exits 4
//	exit CODE    prints "exiting", exits CODE
//	stubborn     prints "ready" and ignores SIGTERM and SIGINT (only SIGKILL ends it)
//	busy         holds 32 MiB, spins one core, prints "ready"; SIGTERM exits 3
package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: testprog serve PORT | exit CODE | stubborn | busy")
	}
	signals := make(chan os.Signal, 1)
	switch os.Args[1] {
	case "serve":
		if len(os.Args) < 3 {
			fail("serve needs a port")
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", os.Args[2]))
		if err != nil {
			fail("listen: %v", err)
		}
		defer ln.Close()
		go accept(ln)
		signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
		fmt.Println("ready")
		if <-signals == syscall.SIGINT {
			fmt.Println("interrupted")
			os.Exit(4)
		}
		fmt.Println("terminated")
		os.Exit(3)
	case "exit":
		code, err := strconv.Atoi(os.Args[len(os.Args)-1])
		if err != nil {
			fail("exit needs a code: %v", err)
		}
		fmt.Println("exiting")
		os.Exit(code)
	case "stubborn":
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		fmt.Println("ready")
		for { // a sleeping goroutine: select{} alone would be a deadlock the Go runtime ends
			time.Sleep(time.Hour)
		}
	case "busy":
		signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
		held := make([]byte, 32<<20)
		for i := range held {
			held[i] = byte(i)
		}
		fmt.Println("ready")
		go spin()
		<-signals
		fmt.Println("terminated", len(held))
		os.Exit(3)
	default:
		fail("unknown mode %q", os.Args[1])
	}
}

func accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

// spin keeps one core busy until the process ends.
func spin() {
	x := 1
	for {
		x = x*31 + 7
		if x == 0 {
			fmt.Println(x)
		}
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "testprog: "+format+"\n", args...)
	os.Exit(2)
}
