// Command loadgen runs the built-in load generator on its own (`loadgen URL [flags]`, the same
// flags as `crank load`), for measuring it as a separate process.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/crankshaft/crankshaft/internal/loadgen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := loadgen.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
