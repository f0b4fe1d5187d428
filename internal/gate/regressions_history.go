package gate

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/results"
)

// histPoint is one service's results in one run: a job of a result file, or a crank_summary point.
type histPoint struct {
	at      time.Time
	file    string // the result file, relative to the history folder; empty from InfluxDB
	session string
	commit  string
	os      string
	where   place
	values  map[string]float64
	meta    []api.Metadata // from result files only
}

// place is where a series was measured: a service of a scenario and profiles on one machine.
type place struct {
	scenario, profile, service, arch, machine string
	// variant is the run's variant tag (influx.VariantOf); branch its branch, when known.
	variant, branch string
}

// historyEntry is one result file of a history folder.
type historyEntry struct {
	file   string // relative to the folder
	result *results.Result
}

// loadHistory reads every *.json file under dir, ordered by start time (then by path).
func loadHistory(ctx context.Context, dir string) ([]historyEntry, error) {
	var entries []historyEntry
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := results.ReadFile(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				err = fmt.Errorf("%s: %w", path, err)
			}
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		entries = append(entries, historyEntry{file: filepath.ToSlash(rel), result: r})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("history %s: no result files (*.json)", dir)
	}
	return entries, nil
}

// dirPoints turns the selected runs of a history folder into points, and counts those runs.
func dirPoints(entries []historyEntry, sel Selection) ([]histPoint, int) {
	var pts []histPoint
	runs := 0
	for _, e := range entries {
		r := e.result
		at, err := influx.RunTime(r)
		if err != nil {
			at = r.StartTime
		}
		profile := strings.Join(r.Profiles, "+")
		if !sel.keeps(r.Scenario, profile, at) {
			continue
		}
		runs++
		for svc, jr := range r.JobResults.Jobs {
			if jr == nil {
				continue
			}
			env := jr.Environment
			pts = append(pts, histPoint{
				at: at, file: e.file, session: influx.SessionOf(r), os: envText(env["os"]),
				where: place{scenario: r.Scenario, profile: profile, service: svc, arch: envText(env["arch"]),
					machine: cmp.Or(envText(env["hardware"]), envText(env["hostname"])), variant: influx.VariantOf(r)},
				values: jr.Results, meta: jr.Metadata,
			})
		}
	}
	return pts, runs
}

// envText renders an environment value as crank_summary's tags do: 4.0 as "4".
func envText(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// influxPoints reads the selected crank_summary points, and counts their runs.
func influxPoints(ctx context.Context, cfg influx.Config, sel Selection) (pts []histPoint, runs int, truncated bool, err error) {
	fields, err := influx.SummaryFields(ctx, cfg)
	if err != nil {
		return nil, 0, false, err
	}
	var read []string
	for _, f := range fields {
		if sel.wants(f) {
			read = append(read, f)
		}
	}
	if len(read) == 0 {
		return nil, 0, false, nil
	}
	rows, truncated, err := influx.ReadSummaries(ctx, cfg, influx.SummaryFilter{
		Fields: read, Scenario: sel.Scenario, Profile: sel.Profile, Since: sel.Since})
	if err != nil {
		return nil, 0, false, err
	}
	seen := map[string]bool{}
	for _, r := range rows {
		tag := r.Tags
		pts = append(pts, histPoint{
			at: r.Time, session: tag["session"], commit: tag["commit"], os: tag["os"],
			where: place{scenario: tag["scenario"], profile: tag["profile"], service: tag["service"],
				arch: tag["arch"], machine: tag["machine"], variant: cmp.Or(tag["variant"], influx.NoVariant),
				branch: tag["branch"]}, // points written before the variant tag are the default variant
			values: r.Values,
		})
		seen[r.Time.String()+"\x00"+tag["session"]] = true
	}
	return pts, len(seen), truncated, nil
}

// seriesKey names one series: a metric measured in one place.
type seriesKey struct {
	place
	metric string
}

func (k seriesKey) seed() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", k.scenario, k.profile, k.service, k.metric)
	if k.arch != "" || k.machine != "" {
		fmt.Fprintf(h, "\x00%s\x00%s", k.arch, k.machine)
	}
	if k.variant != "" && k.variant != influx.NoVariant || k.branch != "" {
		fmt.Fprintf(h, "\x00%s\x00%s", k.variant, k.branch)
	}
	return h.Sum64()
}

// series is one metric's values over the history, with the points they came from.
type series struct {
	key    seriesKey
	values []float64
	points []*histPoint
	dir    Direction
}

// buildSeries splits the points, ordered by time (then file and session), into series of the
// metrics sel wants, sorted by key.
func buildSeries(pts []histPoint, sel Selection) []*series {
	slices.SortStableFunc(pts, func(a, b histPoint) int {
		return cmp.Or(a.at.Compare(b.at), strings.Compare(a.file, b.file), strings.Compare(a.session, b.session))
	})
	byKey := map[seriesKey]*series{}
	for i := range pts {
		p := &pts[i]
		for m, v := range p.values {
			if !sel.wants(m) {
				continue
			}
			k := seriesKey{p.where, m}
			s := byKey[k]
			if s == nil {
				s = &series{key: k, dir: DirectionOf(m, findMetadata(m, p.meta))}
				byKey[k] = s
			}
			s.values = append(s.values, v)
			s.points = append(s.points, p)
		}
	}
	out := make([]*series, 0, len(byKey))
	for _, s := range byKey {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *series) int {
		x, y := a.key, b.key
		return cmp.Or(strings.Compare(x.scenario, y.scenario), strings.Compare(x.profile, y.profile),
			strings.Compare(x.service, y.service), strings.Compare(x.arch, y.arch),
			strings.Compare(x.machine, y.machine), strings.Compare(x.variant, y.variant),
			strings.Compare(x.branch, y.branch), metricOrder(x.metric, y.metric))
	})
	return out
}

func findMetadata(name string, mds []api.Metadata) *api.Metadata {
	for i := range mds {
		if mds[i].Name == name {
			return &mds[i]
		}
	}
	return nil
}
