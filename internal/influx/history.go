package influx

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bounds of ReadSummaries.
const (
	// DefaultMaxRows caps the crank_summary points one ReadSummaries call returns (the most
	// recent ones): about 90 services' nightly runs over three years.
	DefaultMaxRows = 100_000
	// PageRows is the most points one query asks for (below InfluxDB 1.x's max-row-limit of
	// 10,000 when an administrator sets it).
	PageRows = 10_000
)

// SummaryFilter selects crank_summary points.
type SummaryFilter struct {
	// Fields are the field keys (result names) to read; a point with none of them is skipped.
	Fields []string
	// Scenario and Profile, when set, are matched exactly against the tags ("local+arm").
	Scenario, Profile string
	// Since, when set, leaves out older points.
	Since time.Time
	// MaxRows caps how many points are returned, the most recent ones (default DefaultMaxRows).
	MaxRows int

	pageRows int // rows per query (default PageRows); tests lower it to exercise paging
}

// SummaryRow is one crank_summary point: one service in one run.
type SummaryRow struct {
	Time time.Time
	// Tags holds the HistoryTags the point has.
	Tags map[string]string
	// Values holds the selected fields the point has.
	Values map[string]float64
}

// HistoryTags are the tags ReadSummaries returns with each point.
func HistoryTags() []string {
	return []string{"scenario", "profile", "service", "arch", "os", "machine", "variant", "session", "branch", "commit"}
}

// SummaryFields lists the field keys of crank_summary (every result name ever written).
func SummaryFields(ctx context.Context, cfg Config) ([]string, error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	series, err := Query(ctx, cfg.URL, cfg.Token, cfg.Database(), "SHOW FIELD KEYS FROM "+cfg.summaryFrom())
	if err != nil {
		return nil, fmt.Errorf("influx %s: field keys: %w", cfg.URL, err)
	}
	var keys []string
	for _, s := range series {
		for _, v := range s.Column("fieldKey") {
			if k, ok := v.(string); ok {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil
}

// ReadSummaries reads the crank_summary points that f selects, oldest first, in pages of
// PageRows, each query bounded by cfg.Timeout. When more than f.MaxRows match, it returns the
// most recent f.MaxRows and truncated is true.
func ReadSummaries(ctx context.Context, cfg Config, f SummaryFilter) (rows []SummaryRow, truncated bool, err error) {
	cfg = cfg.withDefaults()
	if len(f.Fields) == 0 {
		return nil, false, fmt.Errorf("influx %s: read summaries: no field selected", cfg.URL)
	}
	limit := cmp.Or(f.MaxRows, DefaultMaxRows)
	base := summaryQuery(cfg, f)
	for len(rows) <= limit {
		page := min(cmp.Or(f.pageRows, PageRows), limit+1-len(rows))
		q := fmt.Sprintf("%s ORDER BY time DESC LIMIT %d OFFSET %d", base, page, len(rows))
		got, err := queryRows(ctx, cfg, q, f.Fields)
		if err != nil {
			return nil, false, fmt.Errorf("influx %s: read summaries: %w", cfg.URL, err)
		}
		rows = append(rows, got...)
		if len(got) < page {
			break
		}
	}
	if len(rows) > limit {
		rows, truncated = rows[:limit], true
	}
	slices.Reverse(rows)
	return rows, truncated, nil
}

// summaryQuery is the SELECT ... FROM ... WHERE part of ReadSummaries' queries.
func summaryQuery(cfg Config, f SummaryFilter) string {
	cols := make([]string, 0, len(f.Fields)+len(HistoryTags()))
	for _, name := range f.Fields {
		cols = append(cols, quoteIdent(name)+"::field")
	}
	for _, tag := range HistoryTags() {
		cols = append(cols, quoteIdent(tag)+"::tag")
	}
	var where []string
	if !f.Since.IsZero() {
		where = append(where, "time >= "+quoteString(f.Since.UTC().Format(time.RFC3339Nano)))
	}
	if f.Scenario != "" {
		where = append(where, `"scenario" = `+quoteString(f.Scenario))
	}
	if f.Profile != "" {
		where = append(where, `"profile" = `+quoteString(f.Profile))
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM " + cfg.summaryFrom()
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return q
}

// summaryFrom names crank_summary in the bucket's database and retention policy.
func (c Config) summaryFrom() string {
	db, rp, _ := strings.Cut(c.withDefaults().Bucket, "/")
	if rp == "" {
		return quoteIdent(db) + ".." + quoteIdent(MeasurementSummary)
	}
	return quoteIdent(db) + "." + quoteIdent(rp) + "." + quoteIdent(MeasurementSummary)
}

// queryRows runs one page's query and decodes its rows.
func queryRows(ctx context.Context, cfg Config, q string, fields []string) ([]SummaryRow, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	series, err := Query(ctx, cfg.URL, cfg.Token, cfg.Database(), q)
	if err != nil {
		return nil, err
	}
	var rows []SummaryRow
	for _, s := range series {
		idx := map[string]int{}
		for i, c := range s.Columns {
			idx[c] = i
		}
		for _, v := range s.Values {
			if r, ok := decodeRow(v, idx, fields); ok {
				rows = append(rows, r)
			}
		}
	}
	return rows, nil
}

// decodeRow turns one answer row (times in ms, from Query) into a SummaryRow; ok is false
// when it has no time or no selected value.
func decodeRow(v []any, idx map[string]int, fields []string) (SummaryRow, bool) {
	col := func(name string) any {
		if i, ok := idx[name]; ok && i < len(v) {
			return v[i]
		}
		return nil
	}
	ms, ok := col("time").(float64)
	if !ok {
		return SummaryRow{}, false
	}
	r := SummaryRow{Time: time.UnixMilli(int64(ms)).UTC(), Tags: map[string]string{}, Values: map[string]float64{}}
	for _, tag := range HistoryTags() {
		if s, ok := col(tag).(string); ok && s != "" {
			r.Tags[tag] = s
		}
	}
	for _, f := range fields {
		if x, ok := col(f).(float64); ok {
			r.Values[f] = x
		}
	}
	return r, len(r.Values) > 0
}

// quoteIdent quotes an InfluxQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// quoteString quotes an InfluxQL string literal.
func quoteString(s string) string {
	return `'` + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + `'`
}
