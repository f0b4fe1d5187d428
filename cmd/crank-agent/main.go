// Command crank-agent runs benchmark jobs for crank controllers: see docs/ARCHITECTURE.md for its
// HTTP API. SIGTERM or SIGINT stops every job (their process groups are killed), removes their
// folders and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/crankshaft/crankshaft/internal/undumpable"
)

func main() {
	if err := undumpable.Set(); err != nil {
		fmt.Fprintf(os.Stderr, "crank-agent: cannot keep its jobs from reading its environment: %v\n", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	os.Exit(code)
}
