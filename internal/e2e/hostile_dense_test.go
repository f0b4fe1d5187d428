package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestHostileDenseAnswersBounded: an answer within its byte bound decoded into far more memory
// than its bytes: {} is three bytes of JSON and a whole Measurement (or Metadata) in crank, and
// 32 MiB of them took crank to 3.7 GB (of Metadata, 5.8 GB). Now such an answer is refused by its
// count, naming the agent and the bound, and one at the counts' bounds (as many samples and names
// as crank takes) keeps crank under maxCrankRSS.
func TestHostileDenseAnswersBounded(t *testing.T) {
	dense := func(head string) func() string {
		return func() string { return head + strings.Repeat(`{},`, (32<<20-100)/3) + `{}]}` }
	}
	atBound := func() string {
		var b strings.Builder
		b.WriteString(`{"metadata":[],"measurements":[`)
		for i := range api.MaxSamples {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"h/%d","value":%d}`, i%api.MaxFigures, i)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	for _, c := range []struct {
		name string
		body func() string
		want []string // in stderr; none: the run passes
	}{
		{"measurements", dense(`{"metadata":[],"measurements":[`), []string{"GET /jobs/", "more than crank takes from an agent (524288)"}},
		{"metadata", dense(`{"measurements":[],"metadata":[`), []string{"GET /jobs/", "more than crank takes from an agent (16384)"}},
		{"at-bound", atBound, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := c.body()
			url := hostileAgent(t, hostileToken, func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/measurements") {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
				return true
			})
			r, _, _ := crankPeak(t, url)
			if c.want == nil {
				if r.code != 0 {
					t.Errorf("exit %d at the bound, want 0\n%s", r.code, lastLines(r.stderr, 15))
				}
				return
			}
			mustContain(t, "stderr", r.stderr, append([]string{"agent " + url}, c.want...)...)
		})
	}
}
