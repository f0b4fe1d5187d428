package influx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/influxdata/influxdb-client-go/v2/api/write"
)

// WriteChangePoints writes change points to crank_changepoint. Whatever cannot be written goes to
// the spool (one file per set of change points, named after their identities, so spooling the
// same changes again replaces the file), for `crank push` to write later. As with Publish, the
// error is non-nil only when the points could not be spooled either; a spooled write failure is
// in Summary.Err. Earlier spooled runs are left to Publish and push.
func WriteChangePoints(ctx context.Context, cfg Config, cps []ChangePoint) (Summary, error) {
	cfg = cfg.withDefaults()
	sum := Summary{URL: cfg.URL, Bucket: cfg.Bucket, SpoolDir: cfg.SpoolDir}
	if len(cps) == 0 {
		return sum, nil
	}
	pts := make([]*write.Point, 0, len(cps))
	for _, c := range cps {
		pts = append(pts, c.Point())
	}
	lines, err := Lines(pts)
	if err != nil {
		return sum, fmt.Errorf("influx: change points: %w", err)
	}
	w, closeClient, err := cfg.writer()
	if err == nil {
		defer closeClient()
		sum.Written, err = writeLines(ctx, w, lines, cfg.Timeout)
	}
	sp := Spool{Dir: cfg.SpoolDir}
	if rest := lines[sum.Written:]; len(rest) > 0 {
		sum.Err = err
		header := []string{fmt.Sprintf("crank change points: %d", len(cps)), "spooled after: " + err.Error()}
		path, serr := sp.Save(changePointsFile(cps), header, rest)
		if serr != nil {
			return sum, fmt.Errorf("influx: change points: write failed (%v) and %w", err, serr)
		}
		sum.Spooled, sum.SpoolFile = len(rest), path
	}
	sum.PendingRuns, sum.PendingPoints, _ = sp.Totals()
	return sum, nil
}

// changePointsFile names the spool file of a set of change points after the earliest one's time
// and a hash of their identities (timestamp and tags, not the fields, which move as history
// grows).
func changePointsFile(cps []ChangePoint) string {
	ids := make([]string, 0, len(cps))
	first := cps[0].Time
	for _, c := range cps {
		ids = append(ids, c.identity())
		if c.Time.Before(first) {
			first = c.Time
		}
	}
	slices.Sort(ids)
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id + "\n"))
	}
	return fmt.Sprintf("%s-changepoints-%s%s", first.UTC().Format("20060102T150405.000000000Z"),
		hex.EncodeToString(h.Sum(nil)[:4]), SpoolExt)
}

// identity is what makes a change point's InfluxDB point: its timestamp and tags.
func (c ChangePoint) identity() string {
	p := c.Point()
	id := fmt.Sprint(p.Time().UnixNano())
	for _, t := range p.TagList() {
		id += "\x00" + t.Key + "=" + t.Value
	}
	return id
}
