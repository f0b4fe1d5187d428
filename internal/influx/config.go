// Package influx sends run results to InfluxDB (1.8, or 2.x through its 1.x-compatible buckets)
// without losing any: points that cannot be written are kept as line protocol in a local spool
// folder, and Publish and `crank push` retry them. docs/INFLUXDB.md describes the schema.
package influx

import (
	"fmt"
	"github.com/crankshaft/crankshaft/internal/privdir"
	"os"
	"path/filepath"
	"strings"
	"time"

	influxdb2 "github.com/influxdata/influxdb-client-go/v2"
)

// Defaults shared by the flags and the environment.
const (
	DefaultBucket  = "crank/autogen"
	DefaultTimeout = 10 * time.Second
	// BatchSize is the most lines sent in one write request.
	BatchSize = 5000
)

// Config says where results go and where they wait when InfluxDB cannot take them.
type Config struct {
	URL string
	// Token is an InfluxDB 2.x token, or "user:password" (or empty) for InfluxDB 1.8.
	Token string
	// Org is ignored by InfluxDB 1.8.
	Org string
	// Bucket is "database/retention-policy" for InfluxDB 1.8 ("crank/autogen").
	Bucket string
	// SpoolDir keeps the runs not yet written (default $CRANK_SPOOL_DIR or ~/.crank/spool).
	SpoolDir string
	// Timeout bounds each write request (default 10 s).
	Timeout time.Duration
	// Tags are added to every point of a run (branch, commit, machine...).
	Tags Tags
}

// ConfigFromEnv reads CRANK_INFLUX_URL, CRANK_INFLUX_TOKEN, CRANK_INFLUX_ORG, CRANK_INFLUX_BUCKET,
// CRANK_INFLUX_TIMEOUT (a Go duration), CRANK_SPOOL_DIR and the tags of TagsFromEnv.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{
		URL:      getenv("CRANK_INFLUX_URL"),
		Token:    getenv("CRANK_INFLUX_TOKEN"),
		Org:      getenv("CRANK_INFLUX_ORG"),
		Bucket:   getenv("CRANK_INFLUX_BUCKET"),
		SpoolDir: getenv("CRANK_SPOOL_DIR"),
		Tags:     TagsFromEnv(getenv),
	}
	if d, err := time.ParseDuration(getenv("CRANK_INFLUX_TIMEOUT")); err == nil && d > 0 {
		c.Timeout = d
	}
	if c.SpoolDir == "" {
		c.SpoolDir = defaultSpoolDir(getenv("HOME"))
	}
	return c.withDefaults()
}

// Enabled tells whether results should be sent: an InfluxDB URL is set.
func (c Config) Enabled() bool { return c.URL != "" }

func (c Config) withDefaults() Config {
	if c.Bucket == "" {
		c.Bucket = DefaultBucket
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.SpoolDir == "" {
		c.SpoolDir = defaultSpoolDir("")
	}
	return c
}

func defaultSpoolDir(home string) string {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return privdir.Temp("spool") // this user's, checked before use (Spool)
	}
	return filepath.Join(home, ".crank", "spool")
}

// Database returns the database part of an InfluxDB 1.8 bucket ("crank" of "crank/autogen").
func (c Config) Database() string {
	db, _, _ := strings.Cut(c.withDefaults().Bucket, "/")
	return db
}

// newClient builds the official client. Its blocking write API sends each batch once and
// returns that batch's error: retrying is the spool's job.
func (c Config) newClient() (influxdb2.Client, error) {
	c = c.withDefaults()
	if !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") {
		return nil, fmt.Errorf("influx url %q: want http://host:port or https://host:port", c.URL)
	}
	secs := uint((c.Timeout + time.Second - 1) / time.Second)
	opts := influxdb2.DefaultOptions().
		SetHTTPRequestTimeout(secs).
		SetPrecision(time.Nanosecond).
		SetMaxRetries(0).
		SetLogLevel(0)
	return influxdb2.NewClientWithOptions(c.URL, c.Token, opts), nil
}
