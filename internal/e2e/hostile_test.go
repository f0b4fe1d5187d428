package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

// A hostile agent is a real crank-agent behind a proxy that answers chosen requests its own way:
// crank talks to the proxy as to any agent, and every answer not rewritten is the real agent's.
// The proxy forwards requests unchanged (headers included), so crank's authentication with the
// real agent holds through it.

// rewrite answers r itself and returns true, or returns false to let the real agent answer.
type rewrite func(w http.ResponseWriter, r *http.Request) bool

// hostileAgent starts a real agent with token and a proxy in front of it on another loopback port,
// and returns the proxy's URL: the agent's URL as crank sees it. The proxy asks rw first for every
// request.
func hostileAgent(t *testing.T, token string, rw rewrite) string {
	t.Helper()
	real := startAgent(t, fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--token", token)
	target, err := url.Parse(real)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rw != nil && rw(w, r) {
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// hostileConfig is shellJobs with a profile "hostile" that sends both services to url.
func hostileConfig(t *testing.T, url string) string {
	t.Helper()
	return shellJobs(t, t.TempDir(), fmt.Sprintf(`
profiles:
  hostile:
    agents:
      application: { endpoints: [ "%[1]s" ] }
      load: { endpoints: [ "%[1]s" ] }
`, url))
}

// TestHostileAgentPassesThrough: with nothing rewritten, a run through the proxy is a run on the
// real agent (the harness the hostile-agent tests stand on), and the proxy saw crank's requests.
func TestHostileAgentPassesThrough(t *testing.T) {
	var seen atomic.Int64
	url := hostileAgent(t, "hostile-token", func(http.ResponseWriter, *http.Request) bool {
		seen.Add(1)
		return false
	})
	r := crankEnv(t, time.Minute, []string{"CRANK_AGENT_TOKEN=hostile-token"},
		"--config", hostileConfig(t, url), "--scenario", "shell", "--profile", "hostile")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := seen.Load(); n < 6 {
		t.Errorf("the proxy saw %d requests, want the run's (at least 6)", n)
	}
}
