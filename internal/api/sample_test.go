package api

import (
	"encoding/json"
	"math"
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
