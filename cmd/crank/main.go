// Command crank runs benchmark scenarios on crank agents. See internal/cli.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/crankshaft/crankshaft/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal stops the jobs and keeps what was measured; a second one quits at once.
	interrupted := context.AfterFunc(ctx, func() {
		stop()
		fmt.Fprintln(os.Stderr, "\ncrank: interrupted: stopping the jobs and saving what was measured (again to quit at once)")
	})
	code := cli.Run(ctx, cli.State{Args: os.Args[1:], Getenv: os.Getenv, Stdout: os.Stdout, Stderr: os.Stderr})
	interrupted()
	stop()
	os.Exit(code)
}
