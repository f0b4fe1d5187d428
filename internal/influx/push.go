package influx

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api"

	"github.com/crankshaft/crankshaft/internal/flags"
)

// flush writes the spooled runs, oldest first, and deletes each once written. A run written in
// part keeps only its unwritten lines. It stops at the first error that would fail every write
// (down: InfluxDB unreachable, timeout, 5xx, refused credentials) and goes on after an error
// that comes from one file's content. skip names a file to leave alone (the run being published).
func flush(ctx context.Context, w api.WriteAPIBlocking, sp Spool, timeout time.Duration,
	log *slog.Logger, sum *Summary, skip string) (down bool, err error) {
	list, err := sp.List()
	if err != nil {
		return false, err
	}
	var last error
	for _, p := range list {
		base := filepath.Base(p.Path)
		if base == skip {
			continue
		}
		header, lines, err := sp.Read(p.Path)
		if err != nil {
			last = err
			continue
		}
		n, err := writeLines(ctx, w, lines, timeout)
		sum.FlushedPoints += n
		if err == nil {
			if err := sp.Remove(p.Path); err != nil {
				return false, err
			}
			sum.FlushedRuns++
			log.Info("influx: spooled run written", "file", p.Path, "points", n)
			continue
		}
		if n > 0 {
			if _, serr := sp.Save(base, header, lines[n:]); serr != nil {
				return true, serr
			}
		}
		err = fmt.Errorf("spooled run %s: %w", base, err)
		if !fileSpecific(err) {
			return true, err
		}
		log.Warn("influx: spooled run rejected", "file", p.Path, "err", err)
		last = err
	}
	return false, last
}

// Exit codes of Main.
const (
	ExitOK      = 0 // nothing left pending
	ExitPending = 1 // runs still pending (InfluxDB unreachable or rejecting them)
	ExitUsage   = 2 // bad flags or no InfluxDB configured
)

// Flags declares the InfluxDB flags of a command on fs, their defaults c's (the environment's,
// ConfigFromEnv), but for the token: --influx-token sets *token, so that --help never prints the
// environment's token; the command then takes cmp.Or(*token, c.Token). spool says what --spool is
// to the command.
func (c *Config) Flags(fs *flags.Set, token *string, spool string) {
	fs.String(&c.URL, "InfluxDB URL (CRANK_INFLUX_URL)", "influx-url")
	fs.String(token, "token, or user:password for InfluxDB 1.8 (default CRANK_INFLUX_TOKEN; prefer the environment)", "influx-token")
	fs.String(&c.Org, "organization, ignored by InfluxDB 1.8 (CRANK_INFLUX_ORG)", "influx-org")
	fs.String(&c.Bucket, "bucket, database/retention-policy for 1.8 (CRANK_INFLUX_BUCKET)", "influx-bucket")
	fs.String(&c.SpoolDir, spool+" (CRANK_SPOOL_DIR)", "spool")
}

// Main is `crank push [--influx-url URL] [--influx-token T] [--influx-org O] [--influx-bucket B]
// [--spool DIR] [--timeout D] [--list]`: it writes the spooled runs and reports what is left.
// Flags default to the environment (ConfigFromEnv).
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg := ConfigFromEnv(getenv)
	var list bool
	var token string
	fs := &flags.Set{}
	cfg.Flags(fs, &token, "the spool folder")
	fs.Duration(&cfg.Timeout, "timeout of each write request", "timeout")
	fs.Bool(&list, "only list the pending runs", "list")
	pos, err := fs.Parse(args)
	if err != nil {
		return flags.Fail(err, "crank push", stdout, stderr, func(w io.Writer) {
			fmt.Fprint(w, "usage: crank push [flags]\n\nWrites the runs spooled when InfluxDB could not take them, and says what is left.\n\nFlags:\n")
			fs.Usage(w)
		})
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "crank push: unexpected argument %q\n", pos[0])
		return ExitUsage
	}
	cfg.Token = cmp.Or(token, cfg.Token)
	cfg = cfg.withDefaults()
	sp := Spool{Dir: cfg.SpoolDir}
	pending, err := sp.List()
	if err != nil {
		fmt.Fprintf(stderr, "crank push: %v\n", err)
		return ExitPending
	}
	if len(pending) == 0 {
		fmt.Fprintf(stdout, "nothing pending in %s\n", cfg.SpoolDir)
		return ExitOK
	}
	if list || !cfg.Enabled() {
		printPending(stdout, pending)
		if !cfg.Enabled() {
			fmt.Fprintln(stderr, "crank push: no InfluxDB: set --influx-url or CRANK_INFLUX_URL")
			return ExitUsage
		}
		return ExitOK
	}
	return push(ctx, cfg, sp, stdout, stderr)
}

func push(ctx context.Context, cfg Config, sp Spool, stdout, stderr io.Writer) int {
	w, closeClient, err := cfg.writer()
	if err != nil {
		fmt.Fprintf(stderr, "crank push: %v\n", err)
		return ExitUsage
	}
	defer closeClient()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sum := Summary{URL: cfg.URL, Bucket: cfg.Bucket, SpoolDir: cfg.SpoolDir}
	_, err = flush(ctx, w, sp, cfg.Timeout, log, &sum, "")
	sum.PendingRuns, sum.PendingPoints, _ = sp.Totals()
	sum.Err = err
	fmt.Fprintln(stdout, sum.String())
	if sum.PendingRuns > 0 {
		return ExitPending
	}
	return ExitOK
}

func printPending(w io.Writer, pending []Pending) {
	total := 0
	for _, p := range pending {
		fmt.Fprintf(w, "%s\t%d points\n", p.Path, p.Points)
		total += p.Points
	}
	fmt.Fprintf(w, "%d runs (%d points) pending\n", len(pending), total)
}
