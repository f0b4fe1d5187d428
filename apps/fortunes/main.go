// Command fortunes is the TechEmpower fortunes app: GET /fortunes runs one prepared query on
// PostgreSQL (pgx v5 pool sized to the cores), adds a fortune in memory, sorts by message and
// renders an HTML table through html/template.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crankshaft/crankshaft/internal/app/metrics"
	"github.com/crankshaft/crankshaft/internal/app/runner"
)

// fortunesStatement is the prepared statement every pool connection gets.
const (
	fortunesStatement = "fortunes"
	fortunesQuery     = "SELECT id, message FROM fortune"
)

func main() {
	var database string
	os.Exit(runner.Main(runner.App{
		Name:     "fortunes",
		Dispatch: true,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&database, "database", os.Getenv("DATABASE_URL"),
				"PostgreSQL URL, postgres://user:pass@host:port/db (default $DATABASE_URL)")
		},
		Serve: func(ctx context.Context, ln net.Listener, env *runner.Env) error {
			return serve(ctx, ln, env, database)
		},
	}))
}

func serve(ctx context.Context, ln net.Listener, env *runner.Env, database string) error {
	pool, err := newPool(ctx, database)
	if err != nil {
		return err
	}
	defer pool.Close()
	queries := prometheus.NewCounter(prometheus.CounterOpts{
		Name: metrics.DBQueriesTotal, Help: "Database queries issued.",
	})
	env.Metrics.Registry.MustRegister(queries)
	app := &app{ctx: ctx, pool: pool, queries: queries,
		dbErrors: env.Metrics.ExceptionCounter(metrics.KindDB), log: env.Logger}
	return runner.ServeHTTP(app.newHandler)(ctx, ln, env)
}

// newPool opens a pool of GOMAXPROCS connections that prepare the fortunes statement.
func newPool(ctx context.Context, database string) (*pgxpool.Pool, error) {
	if database == "" {
		return nil, fmt.Errorf("database: no URL (--database or DATABASE_URL)")
	}
	cfg, err := pgxpool.ParseConfig(database)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	cfg.MaxConns = int32(runtime.GOMAXPROCS(0))
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if _, err := c.Prepare(ctx, fortunesStatement, fortunesQuery); err != nil {
			return fmt.Errorf("prepare %q: %w", fortunesStatement, err)
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", cfg.ConnConfig.Host, err)
	}
	return pool, nil
}
