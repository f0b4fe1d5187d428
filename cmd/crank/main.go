// Command crank runs benchmark scenarios on crank agents. See internal/cli.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/crankshaft/crankshaft/internal/cli"
	"github.com/crankshaft/crankshaft/internal/undumpable"
)

func main() {
	// The embedded agent's jobs run as crank's user: dumpable, crank's /proc/<pid>/environ would
	// give them CRANK_AGENT_TOKEN and CRANK_INFLUX_TOKEN (issue 41, MEDIUM 9).
	if err := undumpable.Set(); err != nil {
		fmt.Fprintf(os.Stderr, "crank: cannot keep its jobs from reading its environment: %v\n", err)
		os.Exit(1)
	}
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
