package influx

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/influxtest"
)

// TestBackslashNamesExactLines: a field key, a measurement name and a tag key ending in a backslash
// (a job's statistic named `lat\`, issue 41, MEDIUM 8) are written without it; a field that would
// then take another's name gets "_" instead of overwriting it. Commas, spaces and equals signs are
// escaped as before.
func TestBackslashNamesExactLines(t *testing.T) {
	p := write.NewPointWithMeasurement(`m\`).SetTime(time.Unix(1, 0)).
		AddTag(`k\`, "v").AddTag("a b", "c,d").
		AddField(`lat\`, 1.5).AddField("lat", 2.0).AddField(`x=y\\`, 3.0)
	lines, err := Lines([]*write.Point{p})
	want := `m,a\ b=c\,d,k=v lat=2,lat_=1.5,x\=y=3 1000000000`
	if err != nil || len(lines) != 1 || lines[0] != want {
		t.Errorf("lines %q (%v), want [%q]", lines, err, want)
	}
}

// TestBackslashFieldWrittenToInfluxDB: a run whose job reports a statistic `lat\` is written
// whole to a real InfluxDB (before, every line was refused and the run spooled), its value under
// `lat`; so are names with spaces, commas, equals signs, tabs, newlines and quotes.
func TestBackslashFieldWrittenToInfluxDB(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	res := influxtest.Run{Start: t0, Session: "bs", Arch: "x64", Partitions: "1", RPS: 1000}.Result()
	res.JobResults.Jobs["load"].Results[`lat\`] = 4.25
	for _, name := range []string{"a b,c=d", "tab\there", "new\nline", `q"uote`, `mid\dle`} { // escaped, not refused
		res.JobResults.Jobs["load"].Results[name] = 1
	}
	sum, err := Publish(context.Background(), cfg, res, nil)
	if err != nil || sum.Err != nil || sum.Spooled != 0 || sum.Written == 0 {
		t.Fatalf("Publish: %v, %v; summary %+v, want every point written", err, sum.Err, sum)
	}
	got := query(t, srv.URL, srv.DB, `SELECT "lat" FROM crank_summary WHERE session = 'bs' AND service = 'load'`)
	if len(got) != 1 || fmt.Sprint(got[0].Values) != "[[1.7145288e+12 4.25]]" {
		t.Errorf("lat = %+v, want 4.25", got)
	}
}
