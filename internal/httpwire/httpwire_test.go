package httpwire

import "testing"

func TestTrimOWS(t *testing.T) {
	for in, want := range map[string]string{" \tkeep-alive \t": "keep-alive", "close": "close", " \t ": "", "a b": "a b"} {
		if got := string(TrimOWS([]byte(in))); got != want {
			t.Errorf("TrimOWS(%q) = %q, want %q", in, got, want)
		}
	}
}
