// Package doccheck finds the command blocks of markdown documents, so a test can run every command
// README.md and docs/ show, as printed, and a doc cannot rot.
//
// A command block is a fenced block tagged sh, bash, shell or console, or an indented or untagged
// (or `text`) fenced block whose first line starts a command (Command). Other blocks (YAML, JSON,
// Go, a program's output, a usage synopsis starting "usage:") are not commands. A command block
// is skipped only with its reason in the document, in an HTML comment on the line before it
// (blank lines between allowed):
//
//	<!-- doccheck: skip: needs 80 cores -->
package doccheck

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is one command block of a document.
type Block struct {
	File string
	Line int    // of the block's first line, from 1
	Text string // the commands, as a shell reads them (indentation removed)
	Skip string // the reason given in the document for not running it; "" to run it
}

func (b Block) String() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

// Command tells a line that starts a command: this repository's programs and scripts, or a tool
// the docs use, maybe after environment assignments (a bare crank too: see BareCrank).
var Command = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(bin/\S+|\./\S+|scripts/\S+|internal/\S+\.sh|agents/\S+\.sh|make|go|curl|sudo|taskset|docker|export|kill|sleep)(\s|$)`)

// bareCrank is a command starting with crank rather than bin/crank: after `make build` crank is
// not on PATH. "crank: ..." and "crank sweep: note: ..." are crank's messages, not commands.
var bareCrank = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*crank(\s+(-\S+|[a-z]+)(\s|$)|\s*$)`)

var (
	separators = regexp.MustCompile(`&&|\|\||;|\|`)
	fence      = regexp.MustCompile("^(\\s*)(```+|~~~+)\\s*([A-Za-z0-9_-]*)")
	skipNote   = regexp.MustCompile(`^<!--\s*doccheck:\s*skip:\s*(.+?)\s*-->\s*$`)
	shellTags  = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}
)

// Blocks returns the command blocks of a markdown document, in order. A skip note that precedes
// no command block is an error, as is one without a reason.
func Blocks(file, md string) ([]Block, error) {
	lines := strings.Split(md, "\n")
	var out []Block
	skip, skipLine := "", 0
	prevBlank := true
	take := func(start int, tag string, body []string, fenced bool) error {
		text := strings.Join(body, "\n")
		first := firstCommandLine(body)
		isCmd := shellTags[tag] || (!fenced || tag == "" || tag == "text") && (Command.MatchString(first) || bareCrank.MatchString(first))
		if !isCmd {
			if skip != "" {
				return fmt.Errorf("%s:%d: a doccheck skip note before a block that is not a command block (line %d)", file, skipLine, start+1)
			}
			return nil
		}
		out = append(out, Block{File: file, Line: start + 1, Text: text, Skip: skip})
		skip = ""
		return nil
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "<!--") && strings.Contains(trimmed, "doccheck") {
			m := skipNote.FindStringSubmatch(trimmed)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: %q: want <!-- doccheck: skip: REASON -->", file, i+1, trimmed)
			}
			skip, skipLine = m[1], i+1
			prevBlank = true
			continue
		}
		if m := fence.FindStringSubmatch(l); m != nil {
			indent, marker, tag := len(m[1]), m[2], m[3]
			var body []string
			j := i + 1
			for ; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), marker); j++ {
				body = append(body, strings.TrimPrefix(lines[j], strings.Repeat(" ", indent)))
			}
			if err := take(i+1, tag, body, true); err != nil {
				return nil, err
			}
			i, prevBlank = j, false
			continue
		}
		if prevBlank && strings.HasPrefix(l, "    ") && trimmed != "" {
			var body []string
			j := i
			for ; j < len(lines); j++ {
				switch {
				case strings.HasPrefix(lines[j], "    "):
					body = append(body, lines[j][4:])
					continue
				case strings.TrimSpace(lines[j]) == "" && j+1 < len(lines) && strings.HasPrefix(lines[j+1], "    "):
					body = append(body, "")
					continue
				}
				break
			}
			if err := take(i, "", body, false); err != nil {
				return nil, err
			}
			i, prevBlank = j-1, false
			continue
		}
		if trimmed != "" && skip != "" {
			return nil, fmt.Errorf("%s:%d: a doccheck skip note followed by text, not by a command block", file, skipLine)
		}
		prevBlank = trimmed == ""
	}
	if skip != "" {
		return nil, fmt.Errorf("%s:%d: a doccheck skip note at the end of the document", file, skipLine)
	}
	return out, nil
}

// firstCommandLine is the block's first line that is neither blank nor a comment.
func firstCommandLine(body []string) string {
	for _, l := range body {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return t
		}
	}
	return ""
}

// BareCrank returns the lines of the block (numbered in the document) that run crank by its
// bare name.
func (b Block) BareCrank() []string {
	var out []string
	for i, l := range strings.Split(b.Text, "\n") {
		t := strings.TrimSpace(l)
		// a command also starts after a separator: `make build && crank ...`
		for _, part := range separators.Split(t, -1) {
			if bareCrank.MatchString(strings.TrimSpace(part)) {
				out = append(out, fmt.Sprintf("%s:%d: %s", b.File, b.Line+i, t))
				break
			}
		}
	}
	return out
}
