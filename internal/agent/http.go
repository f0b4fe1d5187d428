package agent

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/reqsign"
)

// handlerFunc is an endpoint: it returns the value to send or an error. wrap turns it into an
// http.Handler that writes JSON (or text for []byte) and the status code.
type handlerFunc func(r *http.Request) (any, error)

// httpError is an error with its HTTP status.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func conflict(format string, args ...any) error {
	return &httpError{http.StatusConflict, fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// created is a value answered with 201.
type created struct{ v any }

func (a *Agent) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h handlerFunc) { mux.Handle(pattern, a.wrap(h)) }
	handle("GET /health", func(*http.Request) (any, error) { return map[string]string{"status": "ok"}, nil })
	handle("GET /info", a.handleInfo)
	handle("GET /jobs", a.handleList)
	handle("POST /jobs", a.handleCreate)
	mux.HandleFunc("PUT /jobs/{id}/source", func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("name") // a named source (Job.Sources); "" the job's own
		a.wrap(func(r *http.Request) (any, error) { return a.handleSource(w, r, name) }).ServeHTTP(w, r)
	})
	mux.HandleFunc("PUT /jobs/{id}/buildfiles", func(w http.ResponseWriter, r *http.Request) {
		a.wrap(func(r *http.Request) (any, error) { return a.handleSource(w, r, buildFilesKey) }).ServeHTTP(w, r)
	})
	handle("POST /jobs/{id}/source/reuse", a.handleReuse)
	handle("POST /jobs/{id}/start", a.handleStart)
	handle("GET /jobs/{id}", a.handleStatus)
	handle("GET /jobs/{id}/output", a.handleOutput)
	handle("GET /jobs/{id}/measurements", a.handleMeasurements)
	handle("POST /jobs/{id}/stop", a.handleStop)
	handle("POST /jobs/{id}/profiles/start", a.handleProfilesStart)
	handle("POST /jobs/{id}/profiles/stop", a.handleProfilesStop)
	handle("GET /jobs/{id}/profiles/{name}", a.handleProfile)
	handle("DELETE /jobs/{id}", a.handleDelete)
	return a.authorize(mux)
}

// wrap writes a handler's value or error.
func (a *Agent) wrap(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := h(r)
		if err != nil {
			code := http.StatusInternalServerError
			var he *httpError
			if errors.As(err, &he) {
				code = he.code
			}
			if code >= 500 {
				a.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			} else {
				a.log.Warn("request refused", "method", r.Method, "path", r.URL.Path, "status", code, "err", err)
			}
			writeJSON(w, code, api.ErrorBody{Error: err.Error()})
			return
		}
		switch x := v.(type) {
		case []byte:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write(x)
		case created:
			writeJSON(w, http.StatusCreated, x.v)
		default:
			writeJSON(w, http.StatusOK, v)
		}
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// authorize requires a request signed with the token (reqsign) on every path but /health, when
// the agent has a token; with AcceptBearer, the token itself as a bearer token too. Every answer
// gives the agent's clock (reqsign.TimeHeader), so that a client signs with the agent's time.
func (a *Agent) authorize(next http.Handler) http.Handler {
	if a.opts.Token == "" {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(reqsign.TimeHeader, strconv.FormatInt(time.Now().UnixMilli(), 10))
			next.ServeHTTP(w, r)
		})
	}
	v := reqsign.NewVerifier(a.opts.Token, a.opts.SignatureWindow, a.opts.Clock, nil)
	want := []byte(a.opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(reqsign.TimeHeader, strconv.FormatInt(v.Now().UnixMilli(), 10))
		if r.URL.Path == "/health" {
			next.ServeHTTP(w, r)
			return
		}
		bearer, isBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		var err error
		switch {
		case isBearer && a.opts.AcceptBearer:
			if subtle.ConstantTimeCompare([]byte(bearer), want) != 1 {
				err = errors.New("wrong bearer token")
			}
		case isBearer:
			err = errors.New("a bearer token is refused: sign the request with the token (crank does), or start the agent with --accept-bearer")
		default:
			err = v.Check(r, r.Method == http.MethodPut, maxJobBody)
		}
		if err != nil {
			code := http.StatusUnauthorized
			switch {
			case errors.Is(err, reqsign.ErrCacheFull):
				code = http.StatusServiceUnavailable
			case errors.Is(err, reqsign.ErrTooLarge):
				code = http.StatusRequestEntityTooLarge
			}
			a.log.Warn("request refused", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "status", code, "err", err)
			w.Header().Set("WWW-Authenticate", reqsign.Scheme+` realm="crank-agent"`)
			writeJSON(w, code, api.ErrorBody{Error: err.Error()})
			return
		}
		next.ServeHTTP(w, r)
	})
}
