// Command crank-agent runs benchmark jobs for crank controllers: see docs/ARCHITECTURE.md for its
// HTTP API. SIGTERM or SIGINT stops every job (their process groups are killed), removes their
// folders and exits.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	os.Exit(code)
}
