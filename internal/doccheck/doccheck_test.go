package doccheck

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const sample = "# Title\n" +
	"\n" +
	"    make build && bin/crank --config a.yml --scenario a\n" + // 3
	"\n" +
	"```sh\n" +
	"bin/crank sweep --config a.yml \\\n" + // 6
	"  --matrix x=1,2\n" +
	"```\n" +
	"\n" +
	"```yaml\n" +
	"jobs: {}\n" +
	"```\n" +
	"\n" +
	"```\n" +
	"crank sweep: note: load runs on the same agent\n" + // 15: crank's output
	"```\n" +
	"\n" +
	"    usage: bin/crank load URL [flags]\n" + // 18: a synopsis
	"\n" +
	"<!-- doccheck: skip: needs 80 cores -->\n" +
	"\n" +
	"```text\n" +
	"CRANK_AGENT_TOKEN=... bin/crank --profile ampere-80\n" + // 23
	"```\n" +
	"\n" +
	"    crank load http://127.0.0.1:5000 -d 5\n" + // 26: bare
	"\n" +
	"Prose.\n" +
	"\n" +
	"    output of a command\n" +
	"    bin/crank is not at its start\n"

func TestBlocks(t *testing.T) {
	bs, err := Blocks("s.md", sample)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bs {
		got = append(got, b.String()+" skip="+b.Skip+" "+strings.ReplaceAll(b.Text, "\n", "|"))
	}
	want := []string{
		"s.md:3 skip= make build && bin/crank --config a.yml --scenario a",
		"s.md:6 skip= bin/crank sweep --config a.yml \\|  --matrix x=1,2",
		"s.md:23 skip=needs 80 cores CRANK_AGENT_TOKEN=... bin/crank --profile ampere-80",
		"s.md:26 skip= crank load http://127.0.0.1:5000 -d 5",
	}
	if !slices.Equal(got, want) {
		t.Errorf("blocks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var bare []string
	for _, b := range bs {
		bare = append(bare, b.BareCrank()...)
	}
	if want := []string{"s.md:26: crank load http://127.0.0.1:5000 -d 5"}; !slices.Equal(bare, want) {
		t.Errorf("bare crank: %q, want %q", bare, want)
	}
	if b := (Block{File: "x.md", Line: 7, Text: "make build && crank --config a.yml"}); len(b.BareCrank()) != 1 {
		t.Errorf("a bare crank after && is not found")
	}
}

func TestSkipNoteErrors(t *testing.T) {
	for name, md := range map[string]string{
		"no reason":          "<!-- doccheck: skip -->\n\n    bin/crank --config a.yml\n",
		"before text":        "<!-- doccheck: skip: x -->\nSome prose.\n\n    bin/crank --config a.yml\n",
		"before yaml":        "<!-- doccheck: skip: x -->\n```yaml\na: 1\n```\n",
		"at the end":         "text\n<!-- doccheck: skip: x -->\n",
		"misspelt directive": "<!-- doccheck: skipp: x -->\n\n    bin/crank\n",
	} {
		if _, err := Blocks("e.md", md); err == nil || !strings.Contains(err.Error(), "e.md:") {
			t.Errorf("%s: err = %v, want one naming e.md:LINE", name, err)
		}
	}
}

func TestShorten(t *testing.T) {
	for in, want := range map[string]string{
		"bin/crank --config a.yml --scenario a":                               "bin/crank " + shortRun + " --config a.yml --scenario a",
		"bin/crank --config a.yml --variable duration=30 --variable warmup=5": "bin/crank " + shortRun + " --config a.yml --variable duration=1 --variable warmup=0",
		"make build && bin/crank sweep --config p.yml":                        "make build && bin/crank sweep " + shortSweep + " --config p.yml",
		"bin/crank capacity --config p.yml":                                   sloAnswer + " bin/crank capacity " + shortCapacity + " --config p.yml",
		"bin/crank load http://127.0.0.1:8080/plaintext -c 64 -d 5":           "bin/crank load http://127.0.0.1:8080/plaintext -c 64 -d 1",
		"bin/crank report a.json -o r.html":                                   "bin/crank report a.json -o r.html",
		"bin/crank-agent --url http://127.0.0.1:5010":                         "bin/crank-agent --url http://127.0.0.1:5010",
		"bin/crank compare a.json \\\n  b.json\nls":                           "bin/crank compare a.json \\\n  b.json || case $? in 1|3) ;; *) false ;; esac\nls",
		"bin/crank regressions --history h/\nls":                              "bin/crank regressions --history h/ || [ $? -eq 1 ]\nls",
	} {
		if got := shorten(in); got != want {
			t.Errorf("shorten(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// TestSLOAnswer: a block's crank capacity may exit 1 only with its answer that no rate met the
// SLOs, and 3 only with its answer that it cannot tell the capacity; any other failure still fails
// the block, and the commands after it run.
func TestSLOAnswer(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want int
	}{
		{`slo_answer bash -c 'echo "crank capacity: no rate tried met the service level objectives before the search stopped (--max-steps 3 reached)" >&2; exit 1'; echo after`, 0},
		{`slo_answer bash -c 'echo "crank capacity: the service level objectives are not met even at the lowest rate (10 req/s)" >&2; exit 1'`, 0},
		{`slo_answer bash -c 'echo "crank capacity: job application failed: exit status 3" >&2; exit 1'; echo after`, 1},
		{`slo_answer bash -c 'echo "crank capacity: no rate tried met the service level objectives" >&2; exit 2'`, 2},
		{`slo_answer bash -c 'echo "crank capacity: cannot tell the capacity: the search stopped (--max-steps 3 reached)" >&2; exit 3'; echo after`, 0},
		{`slo_answer bash -c 'echo "crank capacity: job application failed" >&2; exit 3'`, 3},
		{`slo_answer true`, 0},
	} {
		out, err := exec.Command("bash", "-e", "-o", "pipefail", "-c", answers+c.cmd).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.want || (c.want == 0 && strings.Contains(c.cmd, "echo after") && !strings.Contains(string(out), "after")) {
			t.Errorf("%s: exit %d, want %d\n%s", c.cmd, code, c.want, out)
		}
	}
}

// TestGatesAnswer: in a block (bash -e), crank compare may exit 1 (regressed) or 3 (inconclusive)
// and the commands after it run; its 2 fails the block, and so does crank regressions' 3.
func TestGatesAnswer(t *testing.T) {
	for _, c := range []struct {
		gate  string
		exit  int
		fails bool
	}{
		{"compare", 0, false}, {"compare", 1, false}, {"compare", 3, false}, {"compare", 2, true},
		{"regressions", 1, false}, {"regressions", 3, true}, {"regressions", 2, true},
	} {
		cmd := gatesAnswer("bin/crank " + c.gate + " a.json\necho after")
		// the gate's command becomes a function exiting as the case says
		script := fmt.Sprintf("gate() { return %d; }\n", c.exit) + strings.Replace(cmd, "bin/crank "+c.gate+" a.json", "gate", 1)
		out, err := exec.Command("bash", "-e", "-o", "pipefail", "-c", script).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if (code != 0) != c.fails || c.fails == strings.Contains(string(out), "after") {
			t.Errorf("crank %s exiting %d: block exit %d, want it to fail: %v\n%s", c.gate, c.exit, code, c.fails, out)
		}
	}
}
