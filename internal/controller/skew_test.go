package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// skewed serves h as an agent on a machine whose clock is ahead by skew: every time it answers
// ("time", "timestamp", "measuredStart") is moved forward.
func skewed(h http.Handler, skew time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			var v any
			if json.Unmarshal(body, &v) == nil {
				if b, err := json.Marshal(shiftTimes(v, skew)); err == nil {
					body = b
				}
			}
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

func shiftTimes(v any, skew time.Duration) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "time" || k == "timestamp" || k == "measuredStart") {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					x[k] = t.Add(skew).Format(time.RFC3339Nano)
				}
				continue
			}
			x[k] = shiftTimes(e, skew)
		}
	case []any:
		for i, e := range x {
			x[i] = shiftTimes(e, skew)
		}
	}
	return v
}

// TestClockFarOffIsSaid: an agent whose clock is 73 years ahead was corrected silently (a debug
// log); it is said as a warning naming the agent, and a clock beyond what crank can correct (year
// 2500: the offset saturates) is refused naming the agent (issue 41, LOW).
func TestClockFarOffIsSaid(t *testing.T) {
	far := startAgent(t, 73*365*24*time.Hour, nil)
	var progress bytes.Buffer
	c := New(Options{Progress: &progress})
	defer c.Close(context.Background())
	ag, err := c.client(t.Context(), far, "")
	if err != nil {
		t.Fatal(err)
	}
	if ag.offset < 73*365*24*time.Hour-time.Minute {
		t.Errorf("offset %s, want about 73 years", ag.offset)
	}
	if want := "warning: agent " + far + ": its clock is 639480h0m"; !strings.HasPrefix(progress.String(), want) || !strings.Contains(progress.String(), fmt.Sprintf("s ahead of crank's (it says %d-", time.Now().Add(ag.offset).UTC().Year())) {
		t.Errorf("progress %q, want it to begin %q", progress.String(), want)
	}
	progress.Reset()
	if _, err := c.client(t.Context(), startAgent(t, 0, nil), ""); err != nil || progress.Len() != 0 {
		t.Errorf("an agent on time: %v, progress %q", err, progress.String())
	}
	y2500 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/health" {
			_, _ = w.Write([]byte(`{"status":"ok"}`))
			return
		}
		_, _ = w.Write([]byte(`{"time":"2500-01-01T00:00:00Z"}`))
	}))
	defer y2500.Close()
	if _, err := c.client(t.Context(), y2500.URL, ""); err == nil || !strings.Contains(err.Error(), "agent "+y2500.URL+": its clock says 2500-01-01T00:00:00Z, too far from crank's to correct") {
		t.Errorf("a clock in 2500: %v, want a refusal naming the agent", err)
	}
}
