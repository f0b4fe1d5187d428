package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// workflowFiles are the workflows the checks below read; TestWorkflowFilesListed keeps it equal to
// the folder, so that a new workflow cannot escape actionlint and the untrusted-input check.
var workflowFiles = [...]string{"ci.yml", "fuzz.yml", "measure.yml", "nightly.yml", "pr-perf-gate.yml"}

func TestWorkflowFilesListed(t *testing.T) {
	found, err := filepath.Glob(filepath.Join(moduleRoot(t), ".github", "workflows", "*.y*ml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range found {
		names = append(names, filepath.Base(f))
	}
	if !slices.Equal(names, workflowFiles[:]) {
		t.Errorf(".github/workflows holds %v; workflowFiles lists %v: list every workflow", names, workflowFiles)
	}
}

// moduleRoot walks up from the package folder to the folder holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// actionlintBinary returns the actionlint that `make test-deps` built into bin/ (on PATH under make
// test), or builds the module's tool into a temporary folder. Building apart from running keeps the
// Go command's own messages (module downloads on a fresh machine) out of what is judged as findings.
func actionlintBinary(t *testing.T, root string) string {
	t.Helper()
	if p, err := exec.LookPath("actionlint"); err == nil {
		return p
	}
	bin := filepath.Join(t.TempDir(), "actionlint")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/rhysd/actionlint/cmd/actionlint")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building actionlint: %v\n%s", err, out)
	}
	return bin
}

// TestWorkflowsPassActionlint runs actionlint (a tool of the module) on the workflows; it also runs
// shellcheck on their scripts when shellcheck is on PATH. Only actionlint's own output is judged.
func TestWorkflowsPassActionlint(t *testing.T) {
	root := moduleRoot(t)
	if _, err := exec.LookPath("shellcheck"); err != nil {
		testutil.Missing(t, "shellcheck is not installed: actionlint would not check the workflows' scripts")
	}
	args := []string{"-no-color"}
	for _, f := range workflowFiles {
		args = append(args, filepath.Join(".github", "workflows", f))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, actionlintBinary(t, root), args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
}

// TestActionlintFindsMistakes keeps the check above able to fail: a workflow with an unknown
// runner label and an undefined expression must give findings.
func TestActionlintFindsMistakes(t *testing.T) {
	root := moduleRoot(t)
	dir := t.TempDir()
	wf := filepath.Join(dir, ".github", "workflows")
	if err := os.MkdirAll(wf, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope.nothing }}\n"
	if err := os.WriteFile(filepath.Join(wf, "bad.yml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(actionlintBinary(t, root), "-no-color", filepath.Join(".github", "workflows", "bad.yml"))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "bad.yml:6") {
		t.Fatalf("actionlint on a broken workflow: %v, want a finding at bad.yml:6\n%s", err, out)
	}
}

// workflow is the part of a workflow file the checks below read.
type workflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		RunsOn   any `yaml:"runs-on"`
		Strategy struct {
			Matrix map[string][]string `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, name string) (workflow, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), ".github", "workflows", name))
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w, string(b)
}

func TestWorkflowsDoWhatTheyShould(t *testing.T) {
	ci, ciText := readWorkflow(t, "ci.yml")
	if _, ok := ci.On["push"]; !ok || !strings.Contains(ciText, `go-version: "1.26"`) || !strings.Contains(ciText, "run: bash .ci/run") {
		t.Errorf("ci.yml: want push and pull_request, Go 1.26 and `bash .ci/run`; on = %v", ci.On)
	}

	nightly, nText := readWorkflow(t, "nightly.yml")
	_, cron := nightly.On["schedule"]
	_, manual := nightly.On["workflow_dispatch"]
	matrix := nightly.Jobs["benchmark"].Strategy.Matrix
	if !cron || !manual || len(matrix["scenario"]) == 0 || len(matrix["profile"]) == 0 {
		t.Errorf("nightly.yml: want schedule, workflow_dispatch and a scenario x profile matrix; on = %v, matrix = %v", nightly.On, matrix)
	}
	for _, want := range []string{"make build", "secrets.CRANK_AGENT_TOKEN", "--influx-url", "--variable",
		"actions/upload-artifact", `bin/crank regressions --history "$HISTORY/" --format markdown`, "GITHUB_STEP_SUMMARY"} {
		if !strings.Contains(nText, want) {
			t.Errorf("nightly.yml lacks %q", want)
		}
	}

	// tonight beside the last good night, side by side; adopted on exit 0 alone
	if !strings.Contains(nText, `bin/crank compare --base "$base" --head "$GITHUB_SHA"`) || strings.Count(nText, `> "$LAST_GOOD/sha"`) != 2 ||
		!strings.Contains(nText, `0) echo "$GITHUB_SHA" > "$LAST_GOOD/sha" ;;`) || !strings.Contains(nText, `3) echo "::warning::inconclusive`) {
		t.Errorf("nightly.yml: want tonight gated beside the last good night, adopted on exit 0 (and the first night) only, exit 3 warned")
	}

	measure, mText := readWorkflow(t, "measure.yml")
	_, cron = measure.On["schedule"]
	_, manual = measure.On["workflow_dispatch"]
	if !cron || !manual {
		t.Errorf("measure.yml: want schedule and workflow_dispatch; on = %v", measure.On)
	}
	for _, want := range []string{`CI: "true"`, "run: make measure", `make bench BENCH_ARGS="--out out/PERFORMANCE.md --runs 10 --rounds 2 --max-rounds 2`, `cp out/PERFORMANCE.json "$night"`,
		`bin/crank compare "$MACHINE/last-good.json" "$NIGHT" --metric bench/ratio --threshold 15%`, `*) exit "$rc" ;;`,
		`bin/crank regressions --history "$MACHINE/nights/"`, `machine="$HISTORY/$(grep -m1 '^model name' /proc/cpuinfo`, "actions/cache/save", "actions/upload-artifact"} {
		if !strings.Contains(mText, want) {
			t.Errorf("measure.yml lacks %q", want)
		}
	}

	// The last good night is adopted on exit 0 alone (and for the first night): never on 3.
	if n := strings.Count(mText, `cp "$NIGHT" "$MACHINE/last-good.json"`); n != 2 || !strings.Contains(mText, `0) cp "$NIGHT" "$MACHINE/last-good.json" ;;`) ||
		!strings.Contains(mText, `3) echo "::warning::inconclusive`) {
		t.Errorf("measure.yml: want the night adopted as last good on exit 0 (and the first night) only, %d copies, and exit 3 warned", n)
	}

	gate, gText := readWorkflow(t, "pr-perf-gate.yml")
	_, pr := gate.On["pull_request"]
	_, comment := gate.On["issue_comment"]
	if !pr || !comment {
		t.Errorf("pr-perf-gate.yml: want pull_request and issue_comment; on = %v", gate.On)
	}
	// base and head measured by crank compare itself, in paired rounds; a regression gives the
	// crank bisect command that finds its commit
	for _, want := range []string{"'perf'", "'/benchmark'", "--json gate.json", "fetch-depth: 0",
		`base/bin/crank compare --base "$BASE_SHA" --head "$HEAD_SHA"`, `--max-rounds "$MAX_ROUNDS" --limit "$LIMIT"`,
		"to find its commit: $command", "createComment", "exit 1",
		// exit 3 fails the check and the job, deliberately: the gate must not pass what it cannot tell
		`'3': ['failure', 'inconclusive`, `3) echo "::error::inconclusive`} {
		if !strings.Contains(gText, want) {
			t.Errorf("pr-perf-gate.yml lacks %q", want)
		}
	}
}

// TestWorkflowsKeepUntrustedInputOutOfScripts: event text (comment bodies, titles, branch names)
// reaches scripts only through environment variables.
func TestWorkflowsKeepUntrustedInputOutOfScripts(t *testing.T) {
	untrusted := regexp.MustCompile(`\$\{\{[^}]*github\.(event|head_ref)[^}]*\}\}`)
	for _, name := range workflowFiles {
		w, _ := readWorkflow(t, name)
		for job, j := range w.Jobs {
			for i, s := range j.Steps {
				if m := untrusted.FindString(s.Run + s.With["script"]); m != "" {
					t.Errorf("%s: job %s step %d puts %s into a script", name, job, i, m)
				}
			}
		}
	}
}
