package api

import (
	"maps"
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
