package doccheck

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// The docs' runs, made short: each crank scenario run measures 1 s without a warm-up, a sweep
// runs each variant 3 times, a capacity search runs 3 steps of 1 s, crank load runs 1 s. The
// doc's own duration and warm-up values are replaced; where it sets none, these come first on its
// command line. Nothing else of a command changes. A sweep's 3 iterations are the fewest with
// which `crank compare` of its variants (docs/SWEEP.md) has an interval at all (with fewer every
// row is inconclusive).
const (
	shortRun      = "--variable duration=1 --variable warmup=0"
	shortSweep    = shortRun + " --iterations 3"
	shortCapacity = "--step-duration 1 --step-warmup 0 --max-steps 3"
)

var (
	runStart      = regexp.MustCompile(`(^|[\s;&|(])bin/crank(\s+-)`)
	sweepStart    = regexp.MustCompile(`(^|[\s;&|(])bin/crank sweep(\s)`)
	capacityStart = regexp.MustCompile(`(^|[\s;&|(])bin/crank capacity(\s)`)
	docDuration   = regexp.MustCompile(`(--variable[ =]duration=)\d+`)
	docWarmup     = regexp.MustCompile(`(--variable[ =]warmup=)\d+`)
	loadDuration  = regexp.MustCompile(`(bin/crank load\b.*\s)(-d|--duration)\s+\S+`)
)

func shorten(cmd string) string {
	cmd = gatesAnswer(cmd)
	cmd = docDuration.ReplaceAllString(cmd, "${1}1")
	cmd = docWarmup.ReplaceAllString(cmd, "${1}0")
	cmd = loadDuration.ReplaceAllString(cmd, "${1}${2} 1")
	cmd = runStart.ReplaceAllString(cmd, "${1}bin/crank "+shortRun+"${2}")
	cmd = sweepStart.ReplaceAllString(cmd, "${1}bin/crank sweep "+shortSweep+"${2}")
	return capacityStart.ReplaceAllString(cmd, "${1}"+sloAnswer+" bin/crank capacity "+shortCapacity+"${2}")
}

// sloAnswer runs a crank capacity command of a block and lets it exit 1 or 3 when that is its
// answer: no rate tried met the SLOs (1), or the search cannot tell the capacity (3: three steps
// stop it before its bracket is within the precision, or a busy machine disturbed it). Three
// 1-second steps on a shared machine can honestly end so (a gate run here: the hypervisor took
// 29-43 % of the machine, p99 14-43 ms against the README's < 10 ms). Any other exit 1 (a job
// that failed), exit 2 (bad input) and every other status still fail the block. answers defines
// it for the block's script.
const sloAnswer = "slo_answer"

const answers = `slo_answer() {
  local err rc=0
  err=$(mktemp)
  "$@" 2>"$err" || rc=$?
  cat "$err" >&2
  if [ "$rc" -eq 1 ] && grep -qE '^crank capacity: (no rate tried met the service level objectives|the service level objectives are not met even at the lowest rate)' "$err"; then
    echo "doccheck: crank capacity answered that no rate tried met the SLOs (exit 1)" >&2
    rc=0
  elif [ "$rc" -eq 3 ] && grep -q '^crank capacity: cannot tell the capacity: ' "$err"; then
    echo "doccheck: crank capacity answered that it cannot tell the capacity (exit 3)" >&2
    rc=0
  fi
  rm -f "$err"
  return "$rc"
}
`

// gateStart is a command whose exit status 1 is an answer (a regression found), not a failure;
// for crank compare, 3 (inconclusive) is one too.
var gateStart = regexp.MustCompile(`^\s*bin/crank (compare|regressions)\s`)

// gatesAnswer lets each crank compare or crank regressions command of a block exit 1, and crank
// compare exit 3: with 1-second runs a 5 % change can be noise found significant, or noise too
// wide to tell, and a gate saying so ran as printed. Exit 2 (bad input), crank regressions' 3
// (change points neither written nor spooled) and any other status still fail the block.
func gatesAnswer(cmd string) string {
	lines := strings.Split(cmd, "\n")
	answer := ""
	for i, l := range lines {
		if m := gateStart.FindStringSubmatch(l); m != nil && answer == "" {
			answer = " || [ $? -eq 1 ]"
			if m[1] == "compare" {
				answer = " || case $? in 1|3) ;; *) false ;; esac"
			}
		}
		if answer != "" && !strings.HasSuffix(strings.TrimSpace(l), "\\") {
			lines[i] = l + answer
			answer = ""
		}
	}
	return strings.Join(lines, "\n")
}

// root is the repository's root, where the docs' commands run.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// docs are README.md and docs/*.md, relative to the root.
func docs(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	m, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no docs/*.md under %s: %v", root, err)
	}
	for _, f := range m {
		files = append(files, "docs/"+filepath.Base(f))
	}
	return files
}

// TestDocsShowNoBareCrank: after `make build` crank is bin/crank; a command starting with a bare
// crank fails as printed.
func TestDocsShowNoBareCrank(t *testing.T) {
	r := root(t)
	n := 0
	for _, f := range docs(t, r) {
		for _, b := range blocksOf(t, r, f) {
			n++
			for _, l := range b.BareCrank() {
				t.Errorf("%s: a bare crank: write bin/crank", l)
			}
		}
	}
	if n < 30 {
		t.Errorf("%d command blocks in the docs: the extraction is broken", n)
	}
}

func blocksOf(t *testing.T, root, file string) []Block {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := Blocks(file, string(b))
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// TestDocsRunAsPrinted runs every command block of README.md and docs/*.md in a copy of the
// repository's root, as a reader would after cloning it (shorten only makes the runs short), each
// block as one bash script, in order: a later block may use what an earlier one wrote. Background
// servers a block started are stopped with it. The copy keeps what the blocks write away from
// the tree other tests read at the same time (a job that uploads the root saw a file the blocks
// wrote vanish while it packed) and from files being written there.
func TestDocsRunAsPrinted(t *testing.T) {
	for _, tool := range []string{"bash", "make", "go", "cp"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Missing(t, "%s is not on PATH", tool)
		}
	}
	r := copyOfRoot(t, root(t))
	ran, skipped := map[string]string{}, 0
	for _, f := range docs(t, r) {
		for _, b := range blocksOf(t, r, f) {
			switch {
			case b.Skip != "":
				skipped++
				t.Logf("%s: skipped: %s", b, b.Skip)
				continue
			case ran[b.Text] != "":
				t.Logf("%s: the same commands as %s, run there", b, ran[b.Text])
				continue
			}
			ran[b.Text] = b.String()
			run(t, r, b)
		}
	}
	t.Logf("%d command blocks run, %d skipped (each with its reason above)", len(ran), skipped)
	if len(ran) < 15 {
		t.Errorf("only %d command blocks run: the extraction is broken", len(ran))
	}
}

// blockTimeout bounds one block: the longest is a sweep of 16 one-second runs.
const blockTimeout = 3 * time.Minute

func run(t *testing.T, root string, b Block) {
	t.Helper()
	script := shorten(b.Text)
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", answers+script)
	cmd.Dir = root
	cmd.Env = append(withoutEnv(os.Environ(), "CRANK_AGENT_TOKEN", "CRANK_INFLUX_URL"), "TERM=dumb")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The block's background servers are in its process group: stop them all with it.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	took := time.Since(start).Round(100 * time.Millisecond)
	shown := ""
	if script != b.Text {
		shown = "\nrun as: " + script
	}
	switch {
	case ctx.Err() != nil:
		t.Errorf("%s: did not finish within %s:\n%s%s\n%s", b, blockTimeout, b.Text, shown, out)
	case err != nil:
		t.Errorf("%s: %v:\n%s%s\n%s", b, err, b.Text, shown, out)
	default:
		t.Logf("%s: ok in %s", b, took)
	}
}

func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		keep := true
		for _, n := range names {
			keep = keep && k != n
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

// copyOfRoot copies the repository's root (its git folder included, so that git works in it) to
// a temporary folder. bin and .cache are folders of links to what the root's hold: the blocks run
// the tools built there, and as folders they stay ignored (.gitignore) when a job uploads the
// copy, which refuses a link that leaves it.
func copyOfRoot(t *testing.T, root string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-a"}
	for _, e := range entries {
		switch name := e.Name(); name {
		case "bin", ".cache":
			linkEach(t, filepath.Join(root, name), filepath.Join(dst, name))
		default:
			args = append(args, filepath.Join(root, name))
		}
	}
	if out, err := exec.Command("cp", append(args, dst)...).CombinedOutput(); err != nil {
		t.Fatalf("copying %s to %s: %v\n%s", root, dst, err, out)
	}
	return dst
}

// linkEach makes the folder dst with a link to each entry of src.
func linkEach(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}
