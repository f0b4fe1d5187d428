package counters

import (
	"cmp"
	"math"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// read sums the family's series that match the spec's labels: their values, or for a quantile of
// a summary the matching quantile, or for a histogram its cumulative buckets.
func read(f *dto.MetricFamily, sp spec) reading {
	var r reading
	if f == nil {
		return r
	}
	for _, m := range f.GetMetric() {
		if !matches(m, sp.labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			r.sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			r.sum += m.GetGauge().GetValue()
		case m.Untyped != nil:
			r.sum += m.GetUntyped().GetValue()
		case m.Summary != nil && sp.Read == ReadQuantile:
			for _, q := range m.GetSummary().GetQuantile() {
				if math.Abs(q.GetQuantile()-sp.Quantile) < 1e-9 {
					r.sum += q.GetValue() // a sum of quantiles is only meaningful for one series
				}
			}
		case m.Summary != nil:
			r.sum += m.GetSummary().GetSampleSum()
		case m.Histogram != nil && sp.Read == ReadQuantile:
			r.buckets = addBuckets(r.buckets, m.GetHistogram())
		case m.Histogram != nil:
			r.sum += m.GetHistogram().GetSampleSum()
		default:
			continue
		}
		if ms := m.GetTimestampMs(); ms != 0 && time.UnixMilli(ms).After(r.at) {
			r.at = time.UnixMilli(ms)
		}
		r.ok = true
	}
	return r
}

func matches(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}

// addBuckets merges a histogram's cumulative buckets into acc (same bounds across series).
func addBuckets(acc []bucket, h *dto.Histogram) []bucket {
	for _, b := range h.GetBucket() {
		i := slices.IndexFunc(acc, func(x bucket) bool { return x.le == b.GetUpperBound() })
		if i < 0 {
			acc = append(acc, bucket{le: b.GetUpperBound()})
			i = len(acc) - 1
		}
		acc[i].count += float64(b.GetCumulativeCount())
	}
	if i := slices.IndexFunc(acc, func(x bucket) bool { return math.IsInf(x.le, 1) }); i < 0 {
		acc = append(acc, bucket{le: math.Inf(1), count: float64(h.GetSampleCount())})
	}
	slices.SortFunc(acc, func(a, b bucket) int { return cmp.Compare(a.le, b.le) })
	return acc
}

// value computes a spec's value from two readings dt apart (or as far apart as the exporter's
// timestamps say, when both have one); false when there is none yet.
func value(sp spec, prev, cur reading, dt time.Duration) (float64, bool) {
	if !cur.ok {
		return 0, false
	}
	if !prev.at.IsZero() && !cur.at.IsZero() {
		dt = cur.at.Sub(prev.at)
	}
	switch {
	case sp.Read == ReadGauge:
		return cur.sum, true
	case sp.Read == ReadRate:
		d := cur.sum - prev.sum
		if !prev.ok || dt <= 0 || d < 0 { // first scrape, or the counter was reset
			return 0, false
		}
		return d / dt.Seconds(), true
	case cur.buckets == nil: // a summary's quantile
		return cur.sum, true
	case !prev.ok:
		return 0, false // a histogram's quantile covers the span since the previous scrape
	default:
		return histogramQuantile(sp.Quantile, delta(prev.buckets, cur.buckets))
	}
}

// delta is the per-bucket count of observations made between two readings.
func delta(prev, cur []bucket) []bucket {
	out := make([]bucket, len(cur))
	for i, b := range cur {
		out[i] = b
		if j := slices.IndexFunc(prev, func(x bucket) bool { return x.le == b.le }); j >= 0 {
			out[i].count -= prev[j].count
		}
	}
	return out
}

// histogramQuantile estimates quantile q from cumulative buckets, interpolating linearly inside
// the bucket that holds it, as Prometheus's histogram_quantile does. The +Inf bucket answers
// with the highest finite bound.
func histogramQuantile(q float64, bs []bucket) (float64, bool) {
	if len(bs) == 0 || q < 0 || q > 1 {
		return 0, false
	}
	total := bs[len(bs)-1].count
	if total <= 0 {
		return 0, false
	}
	rank := q * total
	lower, below := 0.0, 0.0
	for _, b := range bs {
		if b.count >= rank {
			if math.IsInf(b.le, 1) {
				return lower, true
			}
			if b.count == below {
				return b.le, true
			}
			return lower + (b.le-lower)*(rank-below)/(b.count-below), true
		}
		lower, below = b.le, b.count
	}
	return lower, true
}
