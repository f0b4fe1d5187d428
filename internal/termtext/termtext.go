// Package termtext makes text that came from an agent or a job (its output, its errors and
// warnings, a measurement's name, a machine's CPU model) safe to print on a terminal.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Clean returns s with what could act on a terminal or forge a line replaced by a visible escape:
// control characters (C0 but tab, DEL, C1: "\x1b", "\n", "\r", "\u009b"), Unicode's line and
// paragraph separators and bidirectional overrides and isolates ("\u202e"), and bytes that are
// not UTF-8 ("\xff"). So an escape sequence (OSC 52 writing the clipboard, a window title, a
// screen clear) prints as text, and a newline in a measurement's name cannot add a table row.
// Other text, UTF-8 of any script included, is kept as it is.
func Clean(s string) string {
	if !needs(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 && r != '\t', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Lines is Clean for text whose line breaks are crank's own (an error that ends with a job's last
// lines of output, each cleaned where it was read): each line is cleaned, the breaks kept.
func Lines(s string) string {
	if !needs(strings.ReplaceAll(s, "\n", "")) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Clean(l)
	}
	return strings.Join(lines, "\n")
}

// needs tells whether s holds anything Clean replaces.
func needs(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r < 0x20 && r != '\t') || r == 0x7f || unsafe(r) {
			return true
		}
		i += size
	}
	return false
}

// unsafe are the runes beyond ASCII that move text or the cursor: C1 controls (0x9b is CSI on
// terminals that read 8-bit controls), line and paragraph separators, and the bidirectional
// marks, embeddings, overrides and isolates that make text read otherwise than it is stored.
func unsafe(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
