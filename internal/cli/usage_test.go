package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestUsageListsEveryCommand: every command Main dispatches on is in `crank --help` (capacity and
// bisect once were not, and a new user could not find them).
func TestUsageListsEveryCommand(t *testing.T) {
	src, err := os.ReadFile("cli.go")
	if err != nil {
		t.Fatal(err)
	}
	cases := regexp.MustCompile(`(?m)^\tcase ("[a-z][a-z-]*"(?:, "[-a-z]+")*):$`).FindAllStringSubmatch(string(src), -1)
	var names []string
	for _, c := range cases {
		for n := range strings.SplitSeq(c[1], ", ") {
			if n = strings.Trim(n, `"`); !strings.HasPrefix(n, "-") && n != "help" {
				names = append(names, n)
			}
		}
	}
	if len(names) < 8 {
		t.Fatalf("found the commands %q in cli.go's dispatch; want at least 8 (has the switch moved?)", names)
	}
	for _, n := range names {
		if !strings.Contains(usage, "\n  crank "+n+" ") && !strings.Contains(usage, "\n  crank "+n+"\n") {
			t.Errorf("crank --help does not list %q", n)
		}
	}
}
