package controller

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
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
