package proc

import (
	"fmt"
	"strings"
)

// Split cuts a command line into arguments the way a POSIX shell does for words, without any
// expansion: blanks separate words; single quotes keep everything literally; double quotes keep
// everything but \" \\ \$ \` which lose their backslash; outside quotes a backslash keeps the next
// character. Operators such as | ; > are ordinary characters: no shell runs.
func Split(line string) ([]string, error) {
	var (
		args    []string
		cur     strings.Builder
		inWord  bool
		quote   rune // 0, '\'' or '"'
		escaped bool
	)
	for _, r := range line {
		switch {
		case escaped:
			if quote == '"' && !strings.ContainsRune("\"\\$`", r) {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("arguments %q: unterminated %c quote", line, quote)
	}
	if escaped {
		return nil, fmt.Errorf("arguments %q: ends with a backslash", line)
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}
