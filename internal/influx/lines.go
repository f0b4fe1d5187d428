package influx

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"
	protocol "github.com/influxdata/line-protocol"
)

// Lines encodes points as InfluxDB line protocol, one line each, nanosecond timestamps. Commas,
// spaces and equals signs in names are escaped by the encoder; a trailing backslash, which no
// spelling makes valid (InfluxDB 1.8 refuses `lat\=1` and `lat\\=1` alike, and a single refused
// line fails the whole write and every later `crank push` of it), is left off each name
// (measurement, tag key and value, field key): see encodable.
func Lines(points []*write.Point) ([]string, error) {
	var buf bytes.Buffer
	enc := protocol.NewEncoder(&buf)
	enc.SetFieldTypeSupport(protocol.UintSupport)
	enc.FailOnFieldErr(true)
	enc.SetPrecision(time.Nanosecond)
	out := make([]string, 0, len(points))
	for _, p := range points {
		buf.Reset()
		if _, err := enc.Encode(encodable(p)); err != nil {
			return nil, fmt.Errorf("point %s at %s: %w", p.Name(), p.Time().Format(time.RFC3339Nano), err)
		}
		out = append(out, strings.TrimRight(buf.String(), "\n"))
	}
	return out, nil
}

// encodable is p with no name ending in a backslash. A field key that loses its backslash and
// then names another field of the point (`lat\` beside `lat`) takes "_" until it names none
// (`lat_`), so that neither value overwrites the other.
func encodable(p *write.Point) *write.Point {
	if !needsTrim(p) {
		return p
	}
	q := write.NewPointWithMeasurement(trimBackslash(p.Name())).SetTime(p.Time())
	for _, t := range p.TagList() {
		q.AddTag(trimBackslash(t.Key), trimBackslash(t.Value))
	}
	taken := make(map[string]bool, len(p.FieldList()))
	for _, f := range p.FieldList() {
		taken[f.Key] = true
	}
	for _, f := range p.FieldList() {
		key := f.Key
		if trimmed := trimBackslash(key); trimmed != key {
			key = trimmed
			for taken[key] { // ends: taken holds at most one key per field
				key += "_"
			}
			taken[key] = true
		}
		q.AddField(key, f.Value)
	}
	return q.SortTags().SortFields()
}

func needsTrim(p *write.Point) bool {
	if strings.HasSuffix(p.Name(), `\`) {
		return true
	}
	for _, t := range p.TagList() {
		if strings.HasSuffix(t.Key, `\`) || strings.HasSuffix(t.Value, `\`) {
			return true
		}
	}
	for _, f := range p.FieldList() {
		if strings.HasSuffix(f.Key, `\`) {
			return true
		}
	}
	return false
}

func trimBackslash(s string) string { return strings.TrimRight(s, `\`) }
