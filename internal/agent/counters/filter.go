package counters

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/prometheus/common/expfmt"
)

// families is the set of metric family names whose lines a scrape passes to the parser: those
// the specs read and, for each, the names it has with a series suffix taken off (again and again),
// so that a line the parser would file under another family is kept with that family's lines.
// A Go app's endpoint exposes some 150 families, runtime histograms among them, and the parser
// allocates for every line: parsing only the specs' families allocates a seventh as much there.
type families map[string]struct{}

func familiesOf(specs []spec) families {
	f := families{}
	for _, sp := range specs {
		for n := []byte(sp.name); len(n) > 0; n = strip(n) {
			f[string(n)] = struct{}{}
		}
	}
	return f
}

// strip is name with a series suffix taken off, or nil when it has none: the suffixes of a
// summary's or histogram's series, which the text parser files under the family's name
// (prometheus/common's expfmt: summaryMetricName, histogramMetricName).
func strip(name []byte) []byte {
	for _, s := range [...]string{"_bucket", "_count", "_sum"} {
		if n := len(name) - len(s); n > 0 && string(name[n:]) == s {
			return name[:n]
		}
	}
	return nil
}

// has says whether the line of a metric named name may belong to one of the families: its own
// family or the one the parser files it under when it is a summary's or histogram's series.
func (f families) has(name []byte) bool {
	_, ok := f[string(name)]
	if !ok {
		_, ok = f[string(strip(name))]
	}
	return ok
}

// keeps says whether the parser gets line (a prefix of it when the line is longer than the
// reader's buffer): not blank lines or comments, which it skips, nor the samples and the HELP and
// TYPE lines of a family no spec reads. A line whose metric name is not a plain one (quoted, or
// malformed) is kept, so the parser reads it as before; an error later in a line that is not kept
// is not seen, and no longer fails the scrape.
func (f families) keeps(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	switch {
	case len(line) == 0 || line[0] == '\n':
		return false
	case line[0] != '#':
		name, rest := cutName(line)
		return len(name) == 0 || len(rest) == 0 || (!isBlankOrTab(rest[0]) && rest[0] != '{') || f.has(name)
	}
	keyword, rest := cutToken(bytes.TrimLeft(line[1:], " \t"))
	if string(keyword) != "HELP" && string(keyword) != "TYPE" {
		return false
	}
	name, rest := cutName(bytes.TrimLeft(rest, " \t"))
	return len(name) == 0 || len(rest) == 0 || !isBlankOrTab(rest[0]) || f.has(name)
}

// cutName splits b after the plain metric name it starts with (empty when it starts with none).
func cutName(b []byte) (name, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == '_' || b[i] == ':' || b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z' ||
		i > 0 && b[i] >= '0' && b[i] <= '9') {
		i++
	}
	return b[:i], b[i:]
}

// cutToken splits b at its first blank, tab or newline.
func cutToken(b []byte) (token, rest []byte) {
	i := bytes.IndexAny(b, " \t\n")
	if i < 0 {
		return b, nil
	}
	return b[:i], b[i:]
}

func isBlankOrTab(b byte) bool { return b == ' ' || b == '\t' }

// kept is what a scrape parses: the lines of the exposition that its families keep, and where
// each was in it (from 1), so that an error names the line the endpoint sent.
type kept struct {
	text  []byte
	lines []int
}

// filter reads r into k: the lines that f keeps, each as it was read.
func (f families) filter(k *kept, r *bufio.Reader) error {
	k.text, k.lines = k.text[:0], k.lines[:0]
	start, keep, line := true, false, 0
	for {
		chunk, err := r.ReadSlice('\n')
		if start {
			line++
			if keep = f.keeps(chunk); keep {
				k.lines = append(k.lines, line)
			}
		}
		if keep {
			k.text = append(k.text, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			start = false // the rest of a long line: kept or not with its start
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		default:
			start = true
		}
	}
}

// sentLine makes a parse error of k's text name the line of the exposition instead.
func (k *kept) sentLine(err error) error {
	var pe expfmt.ParseError
	if errors.As(err, &pe) && pe.Line >= 1 && pe.Line <= len(k.lines) {
		pe.Line = k.lines[pe.Line-1]
		return pe
	}
	return err
}
