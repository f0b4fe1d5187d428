package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// TestTokenNotSentToFetchedEndpoints: MEDIUM 11. crank's agent token went to every agent a
// fetched configuration named. Now an agent that only a configuration fetched from a URL names
// (here from a loopback server) gets no unscoped token, and the error says how to scope one; a
// token file line "URL TOKEN" or --agent-token-for URL lets it through; a local file's agent
// still gets the unscoped token.
func TestTokenNotSentToFetchedEndpoints(t *testing.T) {
	const token = "scoped-token"
	agent := startAgent(t, fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--token", token)
	local := hostileConfig(t, agent)
	text, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(text) }))
	defer srv.Close()
	fetched := srv.URL + "/lab.yml"
	run := func(config string, extra ...string) runResult {
		t.Helper()
		args := append([]string{"--config", config, "--scenario", "shell", "--profile", "hostile"}, extra...)
		return crankEnv(t, time.Minute, []string{"CRANK_AGENT_TOKEN=" + token}, args...)
	}

	r := run(fetched)
	if r.code == 0 {
		t.Fatalf("crank ran on an agent only a fetched configuration names, with the unscoped token:\n%s", r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "agent "+agent+" refused the request (401)", fetched,
		fmt.Sprintf("%q in --agent-token-file", agent+" TOKEN"), "--agent-token-for "+agent)

	file := writeFile(t, t.TempDir(), "tokens", "# the lab\n"+agent+" "+token+"\n")
	for name, extra := range map[string][]string{
		"scoped line":       {"--agent-token-file", file},
		"--agent-token-for": {"--agent-token-for", agent},
	} {
		if r := run(fetched, extra...); r.code != 0 {
			t.Errorf("fetched configuration with %s: exit %d\n%s", name, r.code, r.stderr)
		}
	}
	if r := run(local); r.code != 0 {
		t.Errorf("local configuration with the unscoped token: exit %d\n%s", r.code, r.stderr)
	}
}
