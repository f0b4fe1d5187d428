package api

import "time"

// Measurement is one sample or one result value that a job produced.
type Measurement struct {
	Name      string    `json:"name"`
	Timestamp time.Time `json:"timestamp"`
	Value     float64   `json:"value"`
	// Warmup marks samples taken during the warm-up: kept in timelines, left out of summaries.
	Warmup bool `json:"warmup,omitempty"`
	// Cooldown marks a server's samples taken after the load ended: kept in timelines, left out
	// of summaries.
	Cooldown bool `json:"cooldown,omitempty"`
}

// Measured tells whether the sample counts in summaries (neither warm-up nor cool-down).
func (m Measurement) Measured() bool { return !m.Warmup && !m.Cooldown }

// Operation says how values are combined: over one job's samples (aggregate) or across several
// endpoints of one service (reduce).
type Operation string

// The operations. Percentile operations are "p50", "p90", "p99" and so on (see ParsePercentile).
const (
	OpMax    Operation = "max"
	OpMin    Operation = "min"
	OpAvg    Operation = "avg"
	OpSum    Operation = "sum"
	OpMedian Operation = "median"
	OpFirst  Operation = "first"
	OpLast   Operation = "last"
	OpDelta  Operation = "delta"
	OpCount  Operation = "count"
)

// Metadata declares, once, how a measurement is read: crank's shape plus a unit.
type Metadata struct {
	Source           string    `json:"source"`
	Name             string    `json:"name"`
	Aggregate        Operation `json:"aggregate"`
	Reduce           Operation `json:"reduce"`
	Format           string    `json:"format"`
	Unit             string    `json:"unit,omitempty"`
	ShortDescription string    `json:"shortDescription"`
	LongDescription  string    `json:"longDescription"`
	// Direction is which way the figure gets better: DirectionHigher, DirectionLower, or empty
	// for a figure that is neither (goroutines, threads) or a job's own statistic of unknown sense.
	Direction string `json:"direction,omitempty"`
}

// The directions a Metadata can name.
const (
	DirectionHigher = "higher"
	DirectionLower  = "lower"
)

// Measurements is what a job returns: its declared metadata and its samples in time order.
type Measurements struct {
	Metadata     []Metadata    `json:"metadata"`
	Measurements []Measurement `json:"measurements"`
	// NotMeasured are figures the job's tool printed but not as a value to trust, with why.
	NotMeasured map[string]string `json:"notMeasured,omitempty"`
	// Load is what a load generator reported of its measured window beyond its figures, when
	// its parser reads it (parsers.LoadReporter): the controller merges these across generators.
	Load *LoadReport `json:"load,omitempty"`
}

// LoadReport is one load generator's measured window: when it began and ended (the agent's
// clock), the rate it was asked for and the one it achieved, and its latency histogram.
type LoadReport struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// AskedRate is the requests per second the generator was asked for; 0 for as fast as it can.
	AskedRate float64 `json:"askedRate"`
	// AchievedRate is the requests per second it completed in the window.
	AchievedRate float64 `json:"achievedRate"`
	// Histogram holds every measured latency in microseconds: HdrHistogram's V2 compressed
	// encoding, base64 (empty when the tool gives none).
	Histogram string `json:"histogram,omitempty"`
}
