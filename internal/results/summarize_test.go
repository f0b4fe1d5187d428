package results

import (
	"fmt"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// manyNames is a service of names measurements over two endpoints, samples samples in all, each
// name's samples valued 1, 2, 3, ... on each endpoint.
func manyNames(names, samples int) ([]api.Metadata, [][]api.Measurement) {
	md := make([]api.Metadata, names)
	for i := range md {
		md[i] = api.Metadata{Name: fmt.Sprintf("stat/%d", i), Aggregate: api.OpSum, Reduce: api.OpSum}
	}
	at := time.Unix(0, 0)
	timelines := make([][]api.Measurement, 2)
	for e := range timelines {
		for i := range samples / 2 {
			timelines[e] = append(timelines[e], api.Measurement{Name: md[i%names].Name, Timestamp: at, Value: float64(1 + i/names)})
		}
	}
	return md, timelines
}

// TestSummarizeIsNotQuadratic: 20,000 names and 200,000 samples. Summarize compared every name
// with every sample (4e9 string comparisons: about 110 s at the audit's 141 s for 5e9); read once
// per timeline it takes well under a second. The test allows 30 s, a bound the quadratic version
// exceeds by far and the linear one cannot reach, and checks every name's value.
func TestSummarizeIsNotQuadratic(t *testing.T) {
	const names, samples = 20_000, 200_000
	md, timelines := manyNames(names, samples)
	done := make(chan map[string]float64, 1)
	go func() {
		out, err := Summarize(md, timelines)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	select {
	case out := <-done:
		perEndpoint := samples / 2 / names // 5 samples valued 1..5 a name on each endpoint
		want := 2 * float64(perEndpoint*(perEndpoint+1)/2)
		if len(out) != names {
			t.Fatalf("%d names summarized, want %d", len(out), names)
		}
		for name, v := range out {
			if v != want {
				t.Fatalf("%s = %v, want %v", name, v, want)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Summarize of 200,000 samples of 20,000 names took over 30 s: quadratic")
	}
}

func BenchmarkSummarize(b *testing.B) {
	md, timelines := manyNames(5_000, 100_000)
	for b.Loop() {
		if _, err := Summarize(md, timelines); err != nil {
			b.Fatal(err)
		}
	}
}
