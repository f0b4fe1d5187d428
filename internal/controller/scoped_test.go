package controller

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
)

// tokenAgent serves an in-process agent with token and returns its URL.
func tokenAgent(t *testing.T, token string) string {
	t.Helper()
	a, err := agent.New(agent.Options{Dir: t.TempDir(), Token: token, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() {
		_ = a.Shutdown(context.Background())
		srv.Close()
	})
	return srv.URL
}

// TestScopedTokenGoesOnlyToItsEndpoint: a token scoped to one agent signs for it and for no other
// (the other gets the unscoped token, or none); an agent only a fetched configuration names gets
// the unscoped token only when TokenFor names it.
func TestScopedTokenGoesOnlyToItsEndpoint(t *testing.T) {
	one, two := tokenAgent(t, "T1"), tokenAgent(t, "T2")
	key := func(u string) string { k, _ := api.EndpointKey(u); return k }
	for _, c := range []struct {
		name      string
		opts      Options
		url, from string
		want      string // "" for success, else in the error
	}{
		{"scoped", Options{AgentToken: "T2", ScopedTokens: map[string]string{key(one): "T1"}}, one, "", ""},
		{"unscoped elsewhere", Options{AgentToken: "T2", ScopedTokens: map[string]string{key(one): "T1"}}, two, "", ""},
		{"scoped not elsewhere", Options{ScopedTokens: map[string]string{key(one): "T2"}}, two, "", "(401)"},
		{"fetched", Options{AgentToken: "T2"}, two, "https://lab.example/lab.yml", "--agent-token-for " + key(two)},
		{"fetched, token for", Options{AgentToken: "T2", TokenFor: map[string]bool{key(two): true}}, two, "https://lab.example/lab.yml", ""},
		{"fetched, scoped", Options{ScopedTokens: map[string]string{key(two): "T2"}}, two, "https://lab.example/lab.yml", ""},
		{"fetched, wrong scoped token", Options{ScopedTokens: map[string]string{key(two): "T1"}}, two, "https://lab.example/lab.yml", "(401)"},
	} {
		c.opts.Logger = slog.New(slog.DiscardHandler)
		_, err := New(c.opts).client(t.Context(), c.url, c.from)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if hint := "--agent-token-for"; err != nil && c.from != "" && strings.Contains(c.want, hint) != strings.Contains(err.Error(), hint) {
			t.Errorf("%s: %v; want the scoping hint only when crank withheld the token", c.name, err)
		}
	}
}
