package api

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestSampleBeyondFloat64: a sample of 1e999 (a number JSON allows, beyond float64) failed the
// whole answer's decoding and so the run; it reads as +Inf (-1e999 as -Inf), the other samples as
// they are (issue 41, MEDIUM 6).
func TestSampleBeyondFloat64(t *testing.T) {
	var ms Measurements
	err := json.Unmarshal([]byte(`{"metadata":[],"measurements":[{"name":"a","timestamp":"2026-01-01T00:00:00Z","value":1e999,"warmup":true},
		{"name":"b","timestamp":"2026-01-01T00:00:01Z","value":-1e999},{"name":"c","timestamp":"2026-01-01T00:00:02Z","value":2.5},{"name":"d","timestamp":"2026-01-01T00:00:03Z"}]}`), &ms)
	if err != nil {
		t.Fatal(err)
	}
	got := ms.Measurements
	if len(got) != 4 || !math.IsInf(got[0].Value, 1) || !got[0].Warmup || got[0].Name != "a" || got[0].Timestamp.Second() != 0 ||
		!math.IsInf(got[1].Value, -1) || got[2].Value != 2.5 || got[2].Timestamp.Second() != 2 || got[3].Value != 0 {
		t.Errorf("decoded %+v", got)
	}
	if err := json.Unmarshal([]byte(`{"measurements":[{"name":"x","value":"many"}]}`), new(Measurements)); err == nil {
		t.Error("a string value was accepted")
	}
}

func BenchmarkDecodeSamples(b *testing.B) {
	one := []byte(`{"name":"benchmarks/cpu","timestamp":"2026-01-01T00:00:00.123456789Z","value":12.345},`)
	body := []byte(`{"metadata":[],"measurements":[`)
	for range 10_000 {
		body = append(body, one...)
	}
	body = append(body[:len(body)-1], "]}"...)
	for b.Loop() {
		var ms Measurements
		if err := json.Unmarshal(body, &ms); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDenseAnswerRefused: 32 MiB of {} decoded into 11 million Measurements (crank at 3.7 GB; of
// Metadata, 5.8 GB); an answer holding more samples, metadata or figures not measured than crank
// takes is refused before it is decoded, naming the list and the bound, as are samples of more
// names than it takes, and one at the bounds is read whole.
func TestDenseAnswerRefused(t *testing.T) {
	list := func(n int, elem string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]"
	}
	names := func(n int, value string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"name":"f%d","value":%s},`, i, value)
		}
		return strings.TrimSuffix(b.String(), ",")
	}
	for _, c := range []struct {
		body, want string
	}{
		{`{"measurements":` + list(MaxSamples+1, `{}`) + `}`, "524289 measurements, more than crank takes from an agent (524288)"},
		{`{"metadata":` + list(MaxFigures+1, `{"name":"a,b","source":"[{\"}"}`) + `}`, "16385 metadata, more than crank takes from an agent (16384)"},
		{`{"measurements":[` + names(MaxFigures+1, "1") + `]}`, "samples naming more than 16384 figures, more than crank takes from an agent"},
		{`{"measurements":[` + names(MaxFigures+1, "1e999") + `]}`, "samples naming more than 16384 figures, more than crank takes from an agent"},
		{`{"measurements":` + list(MaxSamples, `{}`) + `,"Measurements":[{}],"measurements":[]}`, "524289 measurements, more than crank takes from an agent (524288)"},
		{`{"notMeasured":{` + strings.TrimSuffix(strings.Repeat(`"k":"v",`, MaxFigures+1), ",") + `}}`, "16385 notMeasured, more than crank takes from an agent (16384)"},
	} {
		err := json.Unmarshal([]byte(c.body), new(Measurements))
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	var ms Measurements
	body := `{"metadata":` + list(MaxFigures, `{"name":"x,y]"}`) + `,"measurements":` + "[" + names(MaxFigures, "1") + strings.Repeat(`,{"name":"f0","value":1}`, MaxSamples-MaxFigures) + "]}"
	if err := json.Unmarshal([]byte(body), &ms); err != nil {
		t.Fatal(err)
	}
	if len(ms.Metadata) != MaxFigures || len(ms.Measurements) != MaxSamples || ms.Metadata[0].Name != "x,y]" || ms.Measurements[MaxSamples-1].Value != 1 {
		t.Errorf("at the bounds: %d metadata, %d samples", len(ms.Metadata), len(ms.Measurements))
	}
	for raw, want := range map[string]int{``: 0, `null`: 0, `[ ]`: 0, `{}`: 0, `[1]`: 1, `[[1,2],{"a":1,"b":2},"x,\"y,"]`: 3, ` {"a,":[1,2], "b":{}} `: 2} {
		if got := elements(json.RawMessage(raw)); got != want {
			t.Errorf("elements(%s) = %d, want %d", raw, got, want)
		}
	}
}
