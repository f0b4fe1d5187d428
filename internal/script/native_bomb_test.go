package script

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestBuiltinCallBombEndsTheProcess: one built-in call that allocates in a loop of its own
// (Array.prototype.fill over 30 million elements) is out of reach of the interrupt, which goja
// checks between instructions: the third audit's new Array(1e9).fill(1) took crank --dry-run to
// 24 GB over 11 minutes past the 256 MB bound and the 10 s timeout. It now ends the process
// AbortGrace after the interrupt, naming the script (issue 25, third audit, 3). Run in a child
// process, since that is what it ends.
func TestBuiltinCallBombEndsTheProcess(t *testing.T) {
	if os.Getenv("CRANKSHAFT_SCRIPT_BOMB") == "1" {
		err := New(nil).Run("bomb.yml:5 onConfigure[0]", `var a = new Array(3e7).fill(1); job = a.length;`)
		os.Stderr.WriteString("returned: " + errString(err) + "\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBuiltinCallBombEndsTheProcess$")
	cmd.Env = append(os.Environ(), "CRANKSHAFT_SCRIPT_BOMB=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("child: %v after %v, want exit status 2; stderr:\n%s", err, took.Round(time.Millisecond), stderr.String())
	}
	for _, want := range []string{"bomb.yml:5 onConfigure[0]", "did not stop within"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q, want it to say %q", stderr.String(), want)
		}
	}
	if took > 30*time.Second {
		t.Errorf("the child ended after %v, want within the bound (about 3 s to reach 256 MB, then %v)", took.Round(time.Millisecond), AbortGrace)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
