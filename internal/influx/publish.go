package influx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api"
	"github.com/influxdata/influxdb-client-go/v2/api/http"

	"github.com/crankshaft/crankshaft/internal/results"
)

// Summary says what Publish or push did. String gives the line the CLI prints.
type Summary struct {
	URL, Bucket, SpoolDir string
	// Written and Spooled count this run's points sent to InfluxDB and put in the spool.
	Written, Spooled int
	// SpoolFile is where this run's unwritten points went.
	SpoolFile string
	// FlushedRuns and FlushedPoints count earlier spooled runs written now.
	FlushedRuns, FlushedPoints int
	// PendingRuns and PendingPoints are what is left in the spool.
	PendingRuns, PendingPoints int
	// Err is the write error that sent points to the spool (nil when everything was written).
	Err error
	// FlushErr is why an earlier spooled run is still pending although this run was written.
	FlushErr error
}

// String is one or two lines for the user: what was written, what waits and how to retry it.
func (s Summary) String() string {
	var b strings.Builder
	if s.Written > 0 {
		fmt.Fprintf(&b, "wrote %d points to %s at %s", s.Written, s.Bucket, s.URL)
	}
	if s.FlushedRuns > 0 {
		sep(&b, "; ")
		fmt.Fprintf(&b, "wrote %d spooled runs (%d points)", s.FlushedRuns, s.FlushedPoints)
	}
	if s.Err != nil {
		sep(&b, "\n")
		fmt.Fprintf(&b, "influxdb write failed: %v", s.Err)
	}
	if s.FlushErr != nil {
		sep(&b, "\n")
		fmt.Fprintf(&b, "a spooled run was rejected: %v", s.FlushErr)
	}
	if s.Spooled > 0 {
		sep(&b, "\n")
		fmt.Fprintf(&b, "spooled %d points to %s", s.Spooled, s.SpoolDir)
	}
	if s.PendingRuns > 0 {
		sep(&b, "\n")
		fmt.Fprintf(&b, "%d runs (%d points) pending in %s; run `crank push` when InfluxDB is reachable",
			s.PendingRuns, s.PendingPoints, s.SpoolDir)
	}
	if b.Len() == 0 {
		return "nothing to write"
	}
	return b.String()
}

func sep(b *strings.Builder, s string) {
	if b.Len() > 0 {
		b.WriteString(s)
	}
}

// Publish first retries the runs waiting in the spool, then writes this run. Whatever is not
// written goes to the spool, so nothing is lost: the returned error is non-nil only when the run
// has no points or its points could not be spooled either. A write failure that was spooled is
// in Summary.Err.
func Publish(ctx context.Context, cfg Config, res *results.Result, log *slog.Logger) (Summary, error) {
	cfg = cfg.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sum := Summary{URL: cfg.URL, Bucket: cfg.Bucket, SpoolDir: cfg.SpoolDir}
	lines, err := Lines(Points(res, cfg.Tags))
	if err != nil {
		return sum, fmt.Errorf("influx: %w", err)
	}
	if len(lines) == 0 {
		return sum, errors.New("influx: the result has no points (no startTime and no sample)")
	}
	sp := Spool{Dir: cfg.SpoolDir}
	name := FileName(res)
	w, closeClient, err := cfg.writer()
	if err == nil {
		defer closeClient()
		down, ferr := flush(ctx, w, sp, cfg.Timeout, log, &sum, name)
		if down {
			err = ferr
		} else {
			sum.FlushErr = ferr
			sum.Written, err = writeLines(ctx, w, lines, cfg.Timeout)
		}
	}
	if rest := lines[sum.Written:]; len(rest) > 0 {
		sum.Err = err
		path, serr := sp.Save(name, spoolHeader(res, err), rest)
		if serr != nil {
			return sum, fmt.Errorf("influx: write failed (%v) and %w", err, serr)
		}
		sum.Spooled, sum.SpoolFile = len(rest), path
		log.Warn("influx: run spooled", "points", len(rest), "file", path, "err", err)
	} else if err := sp.Remove(filepath.Join(sp.Dir, name)); err != nil {
		log.Warn("influx: cannot remove the run's older spool file", "err", err)
	}
	sum.PendingRuns, sum.PendingPoints, _ = sp.Totals()
	return sum, nil
}

func spoolHeader(res *results.Result, err error) []string {
	start, _ := RunTime(res)
	h := []string{fmt.Sprintf("crank run: scenario %q session %q start %s", res.Scenario, SessionOf(res),
		start.Format(time.RFC3339Nano))}
	if err != nil {
		h = append(h, "spooled after: "+err.Error())
	}
	return h
}

// writer returns the blocking write API of a client built from cfg, and how to close it.
func (c Config) writer() (api.WriteAPIBlocking, func(), error) {
	client, err := c.newClient()
	if err != nil {
		return nil, nil, err
	}
	return client.WriteAPIBlocking(c.Org, c.Bucket), client.Close, nil
}

// writeLines sends lines in batches of BatchSize, each bounded by timeout, and returns how many
// lines were written before the first failure.
func writeLines(ctx context.Context, w api.WriteAPIBlocking, lines []string, timeout time.Duration) (int, error) {
	done := 0
	for done < len(lines) {
		end := min(done+BatchSize, len(lines))
		bctx, cancel := context.WithTimeout(ctx, timeout)
		err := w.WriteRecord(bctx, lines[done:end]...)
		cancel()
		if err != nil {
			return done, fmt.Errorf("write lines %d-%d: %w", done+1, end, describe(err))
		}
		done = end
	}
	return done, nil
}

// describe adds the HTTP status to the client's error, which often leaves it out.
func describe(err error) error {
	var herr *http.Error
	if errors.As(err, &herr) && herr.StatusCode != 0 {
		return fmt.Errorf("status %d: %w", herr.StatusCode, err)
	}
	return err
}

// fileSpecific tells an error that comes from a batch's content (bad line protocol, a field type
// conflict): other files and runs may still be written. Any other error (unreachable, timeout,
// 5xx, authentication, unknown database) would fail them all.
func fileSpecific(err error) bool {
	var herr *http.Error
	if !errors.As(err, &herr) {
		return false
	}
	return herr.StatusCode == 400 || herr.StatusCode == 413 || herr.StatusCode == 422
}
