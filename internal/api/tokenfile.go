package api

import (
	"context"
	"errors"
	"fmt"
	"github.com/crankshaft/crankshaft/internal/privdir"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// An agent on a loopback address that is given no token makes a random one and writes it to
// TokenFile(its address), readable by its user only; LocalToken reads it back for a crank run by
// the same user. Other local users cannot read it, so they cannot use the agent.

// TokenDir is the folder of the local agents' token files: $XDG_RUNTIME_DIR/crankshaft, else
// crankshaft/tokens under the user's cache folder.
func TokenDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "crankshaft")
	}
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		return privdir.Temp("tokens")
	}
	return filepath.Join(base, "crankshaft", "tokens")
}

// TokenFile is where the agent listening on addr (an IP and port, as the listener reports it)
// keeps its token.
func TokenFile(addr net.Addr) string {
	name := strings.NewReplacer(":", "_", "[", "", "]", "", "%", "_").Replace(addr.String())
	return filepath.Join(TokenDir(), "agent-"+name+".token")
}

// WriteTokenFile writes the token for the agent on addr (the folder 0700, the file 0600) and
// returns its path.
func WriteTokenFile(addr net.Addr, token string) (string, error) {
	path := TokenFile(addr)
	// Made and checked as privdir does: the fallback folder lies under the shared temporary folder,
	// where another user could make it first and then swap the token file for one of their own.
	if err := privdir.Make(filepath.Dir(path)); err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".token-")
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	_, werr := tmp.WriteString(token + "\n")
	if err := errors.Join(werr, tmp.Chmod(0o600), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("token file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("token file: %w", err)
	}
	return path, nil
}

// LocalToken returns the token a local agent at agentURL wrote, when its host resolves to a
// loopback address and the file is there, and that address (IP and port): the client must dial
// that address (DialAddr), not resolve the name again, since the name may resolve to another
// loopback address where another user listens. "", "" otherwise.
func LocalToken(ctx context.Context, agentURL string) (token, addr string) {
	u, err := url.Parse(agentURL)
	if err != nil || u.Port() == "" {
		return "", ""
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, u.Hostname())
	if err != nil {
		return "", ""
	}
	if privdir.Owned(TokenDir()) != nil { // another user's folder: a token planted there is not ours
		return "", ""
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			continue
		}
		hostport := net.JoinHostPort(a.IP.String(), u.Port())
		tcp, err := net.ResolveTCPAddr("tcp", hostport)
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(TokenFile(tcp)); err == nil {
			return strings.TrimSpace(string(b)), hostport
		}
	}
	return "", ""
}

// ReadTokenFile reads a token kept in a file (crank-agent --token-file, crank --agent-token-file):
// the first line, trimmed.
func ReadTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	tok := strings.TrimSpace(line)
	if tok == "" {
		return "", fmt.Errorf("token file %s is empty", path)
	}
	return tok, nil
}
