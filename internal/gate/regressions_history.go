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

	"github.com/crankshaft/crankshaft/internal/results"
)

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
	slices.SortStableFunc(entries, func(a, b historyEntry) int {
		if c := a.result.StartTime.Compare(b.result.StartTime); c != 0 {
			return c
		}
		return strings.Compare(a.file, b.file)
	})
	return entries, nil
}

// seriesKey names one series: a metric of a service in one scenario and set of profiles.
type seriesKey struct {
	scenario, profiles, service, metric string
}

func (k seriesKey) seed() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", k.scenario, k.profiles, k.service, k.metric)
	return h.Sum64()
}

// series is one metric's values over the history, with where each came from.
type series struct {
	key    seriesKey
	values []float64
	times  []time.Time
	files  []string
	dir    Direction
}

// buildSeries splits the history into series of the wanted metrics (the default ones when wanted
// is empty), sorted by key.
func buildSeries(entries []historyEntry, wanted []string) []*series {
	byKey := map[seriesKey]*series{}
	for _, e := range entries {
		r := e.result
		for svc, jr := range r.JobResults.Jobs {
			if jr == nil {
				continue
			}
			for _, m := range metricsOf([]*results.JobResult{jr}, wanted) {
				k := seriesKey{r.Scenario, strings.Join(r.Profiles, ","), svc, m}
				s := byKey[k]
				if s == nil {
					s = &series{key: k, dir: DirectionOf(m, metadataOf(m, jr))}
					byKey[k] = s
				}
				s.values = append(s.values, jr.Results[m])
				s.times = append(s.times, r.StartTime)
				s.files = append(s.files, e.file)
			}
		}
	}
	out := make([]*series, 0, len(byKey))
	for _, s := range byKey {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *series) int {
		return cmp.Or(strings.Compare(a.key.scenario, b.key.scenario), strings.Compare(a.key.profiles, b.key.profiles),
			strings.Compare(a.key.service, b.key.service), metricOrder(a.key.metric, b.key.metric))
	})
	return out
}
