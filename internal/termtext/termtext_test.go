package termtext

import "testing"

// TestClean: what an agent or a job sends cannot act on the terminal or forge a line, and text
// (UTF-8 of any script, tabs) is kept (issue 41, LOW).
func TestClean(t *testing.T) {
	cases := map[string]string{
		"plain ascii": "plain ascii",
		"Intel(R) Xeon(R) – 2.1 GHz, 東京 µs": "Intel(R) Xeon(R) – 2.1 GHz, 東京 µs",
		"a\tb":                           "a\tb",
		"\x1b]52;c;ZWNobyBvd25lZA==\x07": `\x1b]52;c;ZWNobyBvd25lZA==\x07`, // OSC 52: the clipboard
		"\x1b]0;title\x1b\\":             `\x1b]0;title\x1b\`,
		"\x1b[2J\x1b[H":                  `\x1b[2J\x1b[H`, // clear the screen
		"lat\n| forged | 1 | ms |":       `lat\n| forged | 1 | ms |`,
		"over\rwrite":                    `over\rwrite`,
		"del\x7f":                        `del\x7f`,
		"csi\u009b2J":                    `csi\u009b2J`,
		"rtl\u202eevil\u2066":            `rtl\u202eevil\u2066`,
		"line\u2028sep":                  `line\u2028sep`,
		"bad\xffutf8":                    `bad\xffutf8`,
	}
	for in, want := range cases {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
		if got := Clean(Clean(in)); got != want {
			t.Errorf("Clean twice of %q = %q, want %q", in, got, want)
		}
	}
	if got, want := Lines("crank's\n\x1b[2Jlast line"), "crank's\n\\x1b[2Jlast line"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}
