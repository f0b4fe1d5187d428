package gate

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// Finding is one change point in a history, as `crank regressions` reports it. Index is the
// position in the series of the first run after the change; Time, File (result files) or Session
// (InfluxDB), Commit and OS are that run's.
type Finding struct {
	Scenario string    `json:"scenario,omitempty"`
	Profiles string    `json:"profiles,omitempty"` // joined with "+", as the profile tag
	Service  string    `json:"service"`
	Arch     string    `json:"arch,omitempty"`
	Machine  string    `json:"machine,omitempty"`
	Variant  string    `json:"variant,omitempty"`
	Branch   string    `json:"branch,omitempty"`
	Metric   string    `json:"metric"`
	Index    int       `json:"index"`
	Time     time.Time `json:"time"`
	File     string    `json:"file,omitempty"`
	Session  string    `json:"session,omitempty"`
	Commit   string    `json:"commit,omitempty"`
	// GoodCommit is the commit of the run before the change point: with Commit, the range crank
	// bisect searches (BisectCommand).
	GoodCommit string  `json:"goodCommit,omitempty"`
	OS         string  `json:"os,omitempty"`
	Before     float64 `json:"before"`
	After      float64 `json:"after"`
	Change     float64 `json:"change"` // after/before - 1
	PValue     float64 `json:"pValue"`
	Direction  string  `json:"direction"`
	Regression bool    `json:"regression"` // the change goes the bad way
}

// History is the outcome of a regressions run.
type History struct {
	// Dir is the history folder; empty when the history came from InfluxDB.
	Dir string
	// Influx names the InfluxDB history ("crank/autogen at http://..."); empty for a folder.
	Influx string
	// Files counts the runs analysed: result files, or runs in crank_summary.
	Files  int
	Series int
	// Short counts the series with fewer runs than a change point needs (two segments of
	// stats.Options.MinSize): they cannot tell, so they are inconclusive, not without change.
	Short int
	// Truncated tells that InfluxDB held more points than influx.DefaultMaxRows: only the most
	// recent were analysed.
	Truncated bool
	Options   stats.Options
	Findings  []Finding
}

// Selection chooses the runs and metrics a regressions run analyses.
type Selection struct {
	// Metrics to analyse; when empty, the default set of crank compare (isDefaultMetric).
	Metrics []string
	// Scenario and Profile, when set, keep only the runs of that scenario and of those profiles
	// (joined with "+" as the profile tag: "local+arm").
	Scenario, Profile string
	// Since, when set, leaves out older runs.
	Since time.Time
}

func (s Selection) wants(metric string) bool {
	if len(s.Metrics) == 0 {
		return isDefaultMetric(metric)
	}
	return slices.Contains(s.Metrics, metric)
}

func (s Selection) keeps(scenario, profile string, at time.Time) bool {
	return (s.Scenario == "" || s.Scenario == scenario) && (s.Profile == "" || s.Profile == profile) &&
		(s.Since.IsZero() || !at.Before(s.Since))
}

// DetectRegressions reads the result files under dir and finds change points in each series of
// the wanted metrics (the default ones when empty).
func DetectRegressions(ctx context.Context, dir string, wanted []string, opts stats.Options) (History, error) {
	return DetectDir(ctx, dir, Selection{Metrics: wanted}, opts)
}

// DetectDir finds change points in the runs that sel selects among the result files under dir.
func DetectDir(ctx context.Context, dir string, sel Selection, opts stats.Options) (History, error) {
	entries, err := loadHistory(ctx, dir)
	if err != nil {
		return History{}, err
	}
	pts, runs := dirPoints(entries, sel)
	if runs == 0 {
		return History{}, fmt.Errorf("history %s: no result%s", dir, sel.describe())
	}
	h := History{Dir: dir, Files: runs, Options: opts}
	return h, h.detect(ctx, pts, sel, "no result under "+dir)
}

// DetectInflux finds change points in the runs that sel selects in crank_summary.
func DetectInflux(ctx context.Context, cfg influx.Config, sel Selection, opts stats.Options) (History, error) {
	pts, runs, truncated, err := influxPoints(ctx, cfg, sel)
	if err != nil {
		return History{}, err
	}
	where := fmt.Sprintf("%s at %s", cmp.Or(cfg.Bucket, influx.DefaultBucket), cfg.URL)
	if runs == 0 && len(sel.Metrics) == 0 {
		return History{}, fmt.Errorf("no run%s in %s of %s", sel.describe(), influx.MeasurementSummary, where)
	}
	h := History{Influx: where, Files: runs, Truncated: truncated, Options: opts}
	return h, h.detect(ctx, pts, sel, fmt.Sprintf("no run in %s of %s", influx.MeasurementSummary, where))
}

// describe says which runs sel selects (` of scenario "x" since ...`), for an error saying
// there are none.
func (s Selection) describe() string {
	d := ""
	if s.Scenario != "" {
		d += fmt.Sprintf(" of scenario %q", s.Scenario)
	}
	if s.Profile != "" {
		d += fmt.Sprintf(" with profile %q", s.Profile)
	}
	if !s.Since.IsZero() {
		d += " since " + s.Since.UTC().Format(time.RFC3339)
	}
	return d
}

// detect finds the change points of every series of pts. none says where a metric was looked
// for, in the error naming a wanted metric that no series has.
func (h *History) detect(ctx context.Context, pts []histPoint, sel Selection, none string) error {
	all := buildSeries(pts, sel)
	for _, m := range sel.Metrics {
		if !slices.ContainsFunc(all, func(s *series) bool { return s.key.metric == m }) {
			return fmt.Errorf("unknown metric %q: %s reports it", m, none)
		}
	}
	h.Series, h.Findings = len(all), []Finding{}
	minRuns := h.minRuns()
	for _, s := range all {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(s.values) < minRuns {
			h.Short++
			continue
		}
		o := h.Options
		o.Seed ^= s.key.seed()
		for _, cp := range stats.DetectChangePoints(s.values, o) {
			h.Findings = append(h.Findings, finding(s, cp))
		}
	}
	return nil
}

func finding(s *series, cp stats.ChangePoint) Finding {
	bad := s.dir == LowerIsBetter && cp.Change > 0 || s.dir == HigherIsBetter && cp.Change < 0
	p, k := s.points[cp.Index], s.key
	good := ""
	if cp.Index > 0 {
		good = s.points[cp.Index-1].commit
	}
	return Finding{GoodCommit: good,
		Scenario: k.scenario, Profiles: k.profile, Service: k.service, Arch: k.arch, Machine: k.machine,
		Variant: k.variant, Branch: k.branch,
		Metric: k.metric, Index: cp.Index, Time: p.at, File: p.file, Session: p.session, Commit: p.commit,
		OS: p.os, Before: cp.Before, After: cp.After, Change: cp.Change, PValue: cp.PValue,
		Direction: s.dir.String(), Regression: bad,
	}
}

// minRuns is the fewest runs a series needs to hold a change point: two segments of MinSize.
func (h History) minRuns() int { return 2 * cmp.Or(h.Options.MinSize, stats.DefaultMinSize) }

// Regressed tells whether a change point goes the bad way.
func (h History) Regressed() bool {
	return slices.ContainsFunc(h.Findings, func(f Finding) bool { return f.Regression })
}

// BisectCommand is the crank bisect command that looks for the commit behind a regression (the
// user adds the --config the runs were made with), or "" without the commits of both sides.
func (f Finding) BisectCommand() string {
	if !f.Regression || f.Commit == "" || f.GoodCommit == "" || f.GoodCommit == f.Commit {
		return ""
	}
	metric := f.Metric
	if f.Service != "" {
		metric = f.Service + ":" + f.Metric
	}
	return fmt.Sprintf("bin/crank bisect --config SCENARIO.yml --scenario %s --good %s --bad %s --metric %s", f.Scenario, f.GoodCommit, f.Commit, metric)
}
