package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/results"
)

// shellConfig is a scenario of two quick /bin/sh jobs: a server that prints two lines and sleeps
// (its output displayed), and a load that prints a line and exits.
func shellConfig(t *testing.T, loadArgs string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "shell.yml")
	err := os.WriteFile(p, []byte(`
jobs:
  sleeper:
    executable: /bin/sh
    arguments: '-c "echo hello from the server; echo ready; exec sleep 120"'
    readyStateText: ready
    options: {displayOutput: true}
  quick:
    executable: /bin/sh
    arguments: '`+loadArgs+`'
    waitForExit: true
scenarios:
  shell:
    application:
      job: sleeper
    load:
      job: quick
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), State{Args: args, Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), code
}

func TestShowsOutputCommandsAndKeepsLogs(t *testing.T) {
	cfg := shellConfig(t, `-c "sleep 0.2; echo load says bye"`)
	dir := filepath.Join(t.TempDir(), "logs")
	stdout, stderr, code := run(t, "--config", cfg, "--scenario", "shell", "-v", "--output-dir", dir, "--json", "-", "--iterations", "2")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var res results.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.JobResults.Jobs["load"] == nil {
		t.Fatalf("--json - did not write the results to stdout (%v):\n%s", err, stdout)
	}
	for _, want := range []string{
		`[application] command (on the embedded agent): /bin/sh -c "echo hello from the server; echo ready; exec sleep 120"`,
		"[application] hello from the server", // options.displayOutput
		"| load ",                             // the tables go to stderr when the JSON goes to stdout
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "[load] load says bye") {
		t.Errorf("the load's output was shown without options.displayOutput:\n%s", stderr)
	}
	for name, want := range map[string]string{"application.iteration-1.output.log": "hello from the server\nready\n",
		"load.iteration-2.output.log": "load says bye\n", "application.iteration-2.build.log": ""} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q (%v), want %q", name, b, err, want)
		}
	}
}

func TestFailedJobQuotesCommandAndOutput(t *testing.T) {
	cfg := shellConfig(t, `-c "echo first; echo cannot connect; exit 3"`)
	_, stderr, code := run(t, "--config", cfg, "--scenario", "shell", "--quiet")
	if code != ExitFailed {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{`command: /bin/sh -c "echo first; echo cannot connect; exit 3"`, "cannot connect", "exited with"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "starting job") {
		t.Errorf("--quiet showed progress:\n%s", stderr)
	}
}

func TestOutputsCheckedBeforeTheRun(t *testing.T) {
	cfg := shellConfig(t, `-c "echo done"`)
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", "/nonexistent/dir/out.json"}, "--json /nonexistent/dir/out.json: folder /nonexistent/dir does not exist"},
		{[]string{"--json", t.TempDir()}, "is a folder"},
		{[]string{"--compare", "/nonexistent/base.json"}, "--compare: open /nonexistent/base.json"},
		{[]string{"--output-dir", filepath.Join(file, "logs")}, "--output-dir"},
	} {
		_, stderr, code := run(t, append([]string{"--config", cfg, "--scenario", "shell"}, tc.args...)...)
		if code != ExitBadInput || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "starting job") {
			t.Errorf("%v: exit %d, want 2 before anything starts, with %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// A write that fails after the run still prints the tables and keeps the results in a named
// temporary file.
func TestFailedWriteKeepsResults(t *testing.T) {
	res := &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load": {Results: map[string]float64{"http/rps/mean": 1234}}}}}
	var out, errb bytes.Buffer
	st := State{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	f := &runFlags{jsonOut: "/nonexistent/dir/out.json"}
	if code := finish(context.Background(), st, f, []string{"load"}, res, nil); code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	if !strings.Contains(out.String(), "http/rps/mean") || !strings.Contains(out.String(), "1,234") {
		t.Errorf("no table:\n%s", out.String())
	}
	m := regexp.MustCompile(`the results are kept in (\S+)`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no temporary file named:\n%s", errb.String())
	}
	defer os.Remove(m[1])
	kept, err := results.ReadFile(m[1])
	if err != nil || kept.JobResults.Jobs["load"].Results["http/rps/mean"] != 1234 {
		t.Errorf("kept results: %+v, %v", kept, err)
	}
}

// crank's --compare is repeatable: the run is compared with each file in turn and fails when
// any comparison finds a regression.
func TestCompareWithSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	res := func(rps ...float64) *results.Result {
		jr := &results.JobResult{Results: map[string]float64{"http/rps/mean": rps[0]}}
		for _, v := range rps {
			jr.Iterations = append(jr.Iterations, map[string]float64{"http/rps/mean": v})
		}
		return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"load": jr}}}
	}
	same := filepath.Join(dir, "same.json")
	faster := filepath.Join(dir, "faster.json")
	if err := results.WriteFile(same, res(1000, 1001, 999, 1000, 1002)); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFile(faster, res(2000, 2002, 1998, 2000, 2004)); err != nil {
		t.Fatal(err)
	}
	head := func() *results.Result { return res(1000, 1002, 998, 1001, 999) }
	var out, errOut strings.Builder
	st := State{Stdout: &out, Stderr: &errOut}
	if code := compareWith(st, []string{same}, head()); code != ExitOK {
		t.Errorf("same: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := compareWith(st, []string{same, faster}, head()); code != ExitFailed {
		t.Errorf("same, faster: exit %d, want %d\n%s", code, ExitFailed, out.String())
	}
	if !strings.Contains(out.String(), "compared with "+same) || !strings.Contains(out.String(), "compared with "+faster) {
		t.Errorf("stdout names neither file:\n%s", out.String())
	}
	f, err := parseRunFlags([]string{"-c", "a.yml", "-s", "x", "--compare", same, "--Compare", faster}, func(string) string { return "" })
	if err != nil || len(f.compare) != 2 {
		t.Errorf("--compare twice: %v %v", err, f)
	}
}

// TestOutputDirKeepsServiceNamesInside: a service named "../../escaped" (any configuration may
// name one, a fetched one too) had its logs written two folders above --output-dir; they are
// written inside it, the name's slashes as underscores, and nothing is written outside.
func TestOutputDirKeepsServiceNamesInside(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "c.yml")
	if err := os.WriteFile(cfg, []byte(`
jobs:
  quick:
    executable: /bin/sh
    arguments: '-c "echo out"'
    waitForExit: true
scenarios:
  s:
    "../../escaped":
      job: quick
    "..":
      job: quick
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "a", "logs")
	if _, stderr, code := run(t, "--config", cfg, "--scenario", "s", "--output-dir", dir); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for name, want := range map[string]string{".._.._escaped.output.log": "out\n", "...output.log": "out\n", ".._.._escaped.build.log": ""} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q (%v), want %q", name, b, err, want)
		}
	}
	var outside []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != cfg && filepath.Dir(p) != dir {
			outside = append(outside, p)
		}
		return err
	})
	if len(outside) > 0 {
		t.Errorf("written outside --output-dir %s: %v", dir, outside)
	}
}

// TestOutputDirPlantedByAnotherUser: --output-dir names a folder in a sticky folder anyone may
// write (/tmp), and another user made it first: as a link (to /etc/logrotate.d, and root's crank
// wrote its jobs' output there, read as root's configuration), or as a folder of their own (they
// read the logs). Each is refused before the run, naming the folder and the user, and nothing is
// written where the link points.
func TestOutputDirPlantedByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a folder to another user")
	}
	const nobody = 65534
	shared := filepath.Join(t.TempDir(), "shared")
	target := t.TempDir()
	if err := errors.Join(os.Mkdir(shared, 0o755), os.Chmod(shared, 0o777|fs.ModeSticky)); err != nil {
		t.Fatal(err)
	}
	link, folder := filepath.Join(shared, "logs"), filepath.Join(shared, "theirs")
	if err := errors.Join(os.Symlink(target, link), os.Lchown(link, nobody, nobody), os.Mkdir(folder, 0o777), os.Chown(folder, nobody, nobody)); err != nil {
		t.Fatal(err)
	}
	cfg := shellConfig(t, `-c "echo done"`)
	for d, what := range map[string]string{link: "a link", folder: "a folder"} {
		_, stderr, code := run(t, "--config", cfg, "--scenario", "shell", "--output-dir", d)
		want := "--output-dir: write into " + d + ": belongs to another user"
		if code != ExitBadInput || !strings.Contains(stderr, want) || !strings.Contains(stderr, "("+what+" of user 65534's)") || strings.Contains(stderr, "starting job") {
			t.Errorf("--output-dir %s: exit %d, want 2 before anything starts with %q (%s):\n%s", d, code, want, what, stderr)
		}
	}
	if entries, _ := os.ReadDir(target); len(entries) > 0 {
		t.Errorf("written through the planted link: %v", entries)
	}
}
