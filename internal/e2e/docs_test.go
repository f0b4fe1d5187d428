package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// docCommand is a command (or a shell block) shown in the docs.
type docCommand struct {
	where string // file:line
	text  string
}

// commandStart tells a line that starts a command: a program of this repository or one the
// docs use, maybe after environment assignments.
var commandStart = regexp.MustCompile(`^([A-Z_]+=\S+ )*(bin/crank|crank |make |sudo |go |curl |docker |taskset )`)

// docCommands extracts the commands of a markdown file: each fenced sh block as one script, and
// each command line of indented code blocks; and of a YAML file: its "#   crank ..." comments.
// Lines ending in a backslash continue on the next.
func docCommands(t *testing.T, rel string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testEnv.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []docCommand
	md := strings.HasSuffix(rel, ".md")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case md && strings.HasPrefix(l, "```"):
			lang, start := strings.TrimSpace(l[3:]), i
			var block []string
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				block = append(block, lines[i])
			}
			if lang == "sh" || lang == "bash" || lang == "shell" {
				out = append(out, docCommand{fmt.Sprintf("%s:%d", rel, start+2), strings.Join(block, "\n")})
			}
		case md && strings.HasPrefix(l, "    ") && commandStart.MatchString(strings.TrimSpace(l)):
			start, cmd := i, strings.TrimSpace(l)
			for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[i])
			}
			out = append(out, docCommand{fmt.Sprintf("%s:%d", rel, start+1), cmd})
		case !md && regexp.MustCompile(`^#\s{2,}crank `).MatchString(l):
			start, cmd := i, strings.TrimSpace(strings.TrimPrefix(l, "#"))
			for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(strings.TrimPrefix(lines[i], "#"))
			}
			out = append(out, docCommand{fmt.Sprintf("%s:%d", rel, start+1), cmd})
		}
	}
	return out
}

// docShims are the programs the docs' commands find first on PATH. crank runs scenarios (and
// sweeps) in their --dry-run form (every file, profile, scenario, variable and flag is resolved; nothing is
// started on the lab's machines) and its other commands as they are; make only says what it
// would do (-n); crank-agent and agents/install.sh (through sudo) have their flags checked
// against their own usage; go test finds the tests it names; commands that need a remote machine
// or an image registry (curl to a lab address, docker: go test ./docker validates the compose
// file) are logged as not run.
const docShims = `
-- crank
#!/bin/sh
case "$1" in
  -*|sweep|capacity) exec "$CRANK_BIN/crank" "$@" --dry-run - >/dev/null ;;
  *) exec "$CRANK_BIN/crank" "$@" ;;
esac
-- crank-agent
#!/bin/sh
help=$("$CRANK_BIN/crank-agent" --help 2>&1)
for a in "$@"; do
  case "$a" in --*) n=${a#--}; echo "$help" | grep -q -- "^  -${n%%=*}\b" || { echo "crank-agent has no flag $a" >&2; exit 1; } ;; esac
done
-- make
#!/bin/sh
exec /usr/bin/make -n "$@" >/dev/null
-- sudo
#!/bin/sh
if [ "$1" != agents/install.sh ]; then echo "not run (changes this machine's settings): sudo $*" >>"$DOC_LOG"; exit 0; fi
script=$1; shift
bash -n "$script" || exit 1
while [ $# -gt 0 ]; do
  case "$1" in --*) grep -q -- "	$1)" "$script" || { echo "$script has no flag $1" >&2; exit 1; } ;; esac
  [ "$1" = --args ] && shift
  shift
done
-- go
#!/bin/sh
[ "$1" = test ] || exec "$REAL_GO" "$@"
shift; pkg=$1; shift; name=
while [ $# -gt 0 ]; do [ "$1" = -run ] && name=$2; shift; done
grep -qsE "^func ${name#^}[A-Za-z0-9_]*\(t \*testing.T\)" "$pkg"/*_test.go || { echo "no test matches -run $name in $pkg" >&2; exit 1; }
-- curl
#!/bin/sh
echo "not run (needs a server: a lab machine or InfluxDB): curl $*" >>"$DOC_LOG"
-- docker
#!/bin/sh
echo "not run (needs an image registry): docker $*" >>"$DOC_LOG"
`

func writeShims(t *testing.T, dir string) {
	t.Helper()
	for _, part := range strings.Split(docShims, "\n-- ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocsCommandsRun runs every command shown in profiles/, agents/ and scenarios/ (see
// docShims for the dry-run forms). README.md's and docs/'s run as printed in internal/doccheck.
func TestDocsCommandsRun(t *testing.T) {
	realGo, err := exec.LookPath("go")
	if err != nil {
		testutil.Missing(t, "go is not on PATH")
	}
	var files []string
	for _, pat := range []string{"profiles/*.md", "profiles/*.yml", "agents/*.md", "scenarios/*.md", "scenarios/*.yml"} {
		m, _ := filepath.Glob(filepath.Join(testEnv.root, pat))
		for _, f := range m {
			rel, _ := filepath.Rel(testEnv.root, f)
			files = append(files, rel)
		}
	}
	shims := t.TempDir()
	writeShims(t, shims)
	log := filepath.Join(t.TempDir(), "not-run.log")
	n := 0
	for _, f := range files {
		for _, c := range docCommands(t, f) {
			n++
			script := strings.NewReplacer("bin/crank-agent", "crank-agent", "bin/crank", "crank").Replace(c.text)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			cmd := exec.CommandContext(ctx, "sh", "-ec", script)
			cmd.Dir = t.TempDir()
			for _, d := range []string{"scenarios", "profiles", "agents", "docker", "dashboards", "apps", "internal", "Makefile", "go.mod", "go.sum", "cmd"} {
				if err := os.Symlink(filepath.Join(testEnv.root, d), filepath.Join(cmd.Dir, d)); err != nil {
					t.Fatal(err)
				}
			}
			cmd.Env = append(os.Environ(), "PATH="+shims+":"+os.Getenv("PATH"), "CRANK_BIN="+testEnv.bins,
				"REAL_GO="+realGo, "DOC_LOG="+log, "CRANK_AGENT_TOKEN=doc-token")
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s: %v\n%s\n%s", c.where, err, c.text, out)
			}
		}
	}
	if n < 20 {
		t.Errorf("%d commands found in the docs: the extraction is broken", n)
	}
	if f, err := os.Open(log); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			t.Log(sc.Text())
		}
		f.Close()
	}
	t.Logf("%d commands run", n)
}
