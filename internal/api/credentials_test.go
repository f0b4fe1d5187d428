package api

import (
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadTokens: a token file holds one unscoped token and tokens scoped to endpoints (several on
// one line: one line per lab); what is not a token line is an error naming the file and line.
func TestReadTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "tokens")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("# lab\nT0\nhttp://Lab-App:5010/ http://lab-load:5010 T1\n\nhttps://[::1] T2\n")
	got, err := ReadTokens(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"http://lab-app:5010": "T1", "http://lab-load:5010": "T1", "https://[::1]:443": "T2"}
	if got.Unscoped != "T0" || !maps.Equal(got.Scoped, want) {
		t.Errorf("ReadTokens = %+v, want T0 and %v", got, want)
	}
	for text, wantErr := range map[string]string{
		"T0\nT1\n":                       p + ":2: a second unscoped token",
		"lab-app:5010 T1\n":              p + ":1: \"lab-app:5010\" is not an agent URL",
		"http://a:1 T1\nhttp://a:1 T2\n": p + ":2: a second token for http://a:1",
		"# nothing\n":                    "token file " + p + " is empty",
	} {
		write(text)
		if _, err := ReadTokens(p); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ReadTokens(%q): %v, want %q", text, err, wantErr)
		}
	}
}

// TestTokenDirOfAnotherUserRefused: with neither XDG_RUNTIME_DIR nor a home, the token folder is
// $TMPDIR/crankshaft-UID/tokens, which another user can make first. The agent wrote its token
// file into that user's folder (who could then swap it), and crank read whatever token lay there.
// Now the agent refuses the folder naming it, and crank reads no token from it.
func TestTokenDirOfAnotherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the folder to another user")
	}
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	dir := TokenDir()
	if !strings.HasPrefix(dir, tmp) {
		t.Fatalf("TokenDir() = %s, want under %s", dir, tmp)
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5010}
	planted := TokenFile(addr)
	if err := os.WriteFile(planted, []byte("planted-token\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteTokenFile(addr, "the-agents-own-token"); err == nil || !strings.Contains(err.Error(), "belongs to another user") ||
		!strings.Contains(err.Error(), filepath.Dir(dir)) {
		t.Errorf("WriteTokenFile into another user's folder: %v, want refused naming %s", err, filepath.Dir(dir))
	}
	if b, _ := os.ReadFile(planted); string(b) != "planted-token\n" {
		t.Errorf("the token file was written: %q", b)
	}
	if tok, a := LocalToken(t.Context(), "http://127.0.0.1:5010"); tok != "" || a != "" {
		t.Errorf("LocalToken read %q for %s from another user's folder, want none", tok, a)
	}
}
