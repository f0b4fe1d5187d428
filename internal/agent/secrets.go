package agent

import "strings"

// withoutSecrets drops from an environment what a job must not inherit from its agent: the
// agent's own settings (CRANK_AGENT_TOKEN, CRANK_AGENT_*) and crank's credentials (any CRANK_
// variable naming a token, key, secret or password). A job that needs one names it in its
// environmentVariables.
func withoutSecrets(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !isSecret(strings.ToUpper(kv[:max(strings.IndexByte(kv, '='), 0)])) {
			out = append(out, kv)
		}
	}
	return out
}

func isSecret(name string) bool {
	if !strings.HasPrefix(name, "CRANK_") {
		return false
	}
	if strings.HasPrefix(name, "CRANK_AGENT_") {
		return true
	}
	for _, w := range []string{"TOKEN", "KEY", "SECRET", "PASSWORD"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}
