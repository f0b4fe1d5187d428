package influx

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"
	protocol "github.com/influxdata/line-protocol"
)

// Lines encodes points as InfluxDB line protocol, one line each, nanosecond timestamps.
func Lines(points []*write.Point) ([]string, error) {
	var buf bytes.Buffer
	enc := protocol.NewEncoder(&buf)
	enc.SetFieldTypeSupport(protocol.UintSupport)
	enc.FailOnFieldErr(true)
	enc.SetPrecision(time.Nanosecond)
	out := make([]string, 0, len(points))
	for _, p := range points {
		buf.Reset()
		if _, err := enc.Encode(p); err != nil {
			return nil, fmt.Errorf("point %s at %s: %w", p.Name(), p.Time().Format(time.RFC3339Nano), err)
		}
		out = append(out, strings.TrimRight(buf.String(), "\n"))
	}
	return out, nil
}
