package api

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Tokens are crank's agent tokens, read from --agent-token-file: at most one unscoped token, and
// tokens scoped to endpoints, as netrc scopes a password to a machine. A line is either
//
//	TOKEN
//	http://lab-app:5010 [http://lab-load:5010 ...] TOKEN
//
// (blank lines and lines starting with # are skipped). A scoped token goes to its endpoints only.
type Tokens struct {
	Unscoped string
	Scoped   map[string]string // EndpointKey(url) -> token
}

// EndpointKey is the form under which an agent URL is scoped: scheme://host:port, lower case,
// the scheme's port when none is given, without a path.
func EndpointKey(agentURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(agentURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", fmt.Errorf("%q is not an agent URL (http(s)://host:port)", agentURL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return u.Scheme + "://" + host + ":" + port, nil
}

// ReadTokens reads a token file: an error names the file and line of what is not a token line.
func ReadTokens(path string) (Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return Tokens{}, fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	t := Tokens{Scoped: map[string]string{}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		tok := fields[len(fields)-1]
		if len(fields) == 1 {
			if t.Unscoped != "" {
				return Tokens{}, fmt.Errorf("token file %s:%d: a second unscoped token (give one, or scope it: URL TOKEN)", path, n)
			}
			t.Unscoped = tok
			continue
		}
		for _, u := range fields[:len(fields)-1] {
			key, err := EndpointKey(u)
			if err != nil {
				return Tokens{}, fmt.Errorf("token file %s:%d: %w; want TOKEN or URL... TOKEN", path, n, err)
			}
			if old, ok := t.Scoped[key]; ok && old != tok {
				return Tokens{}, fmt.Errorf("token file %s:%d: a second token for %s", path, n, key)
			}
			t.Scoped[key] = tok
		}
	}
	if err := sc.Err(); err != nil {
		return Tokens{}, fmt.Errorf("token file %s: %w", path, err)
	}
	if t.Unscoped == "" && len(t.Scoped) == 0 {
		return Tokens{}, fmt.Errorf("token file %s is empty", path)
	}
	return t, nil
}
