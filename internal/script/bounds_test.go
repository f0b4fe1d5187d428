package script

import (
	"strings"
	"testing"
	"time"
)

// TestScriptMemoryBounded: an onConfigure that doubles a string in a loop is stopped with a clear
// error, in seconds, instead of taking the machine's memory (an audit crashed crank --dry-run with
// "fatal error: out of memory" at 2 GB) (issue 25, 7). It ends by the interrupt, not by ending the
// process: a make test beside other packages saw the heap's check come late, the string grow past
// HardScriptMemory and the test binary exit, before the hard bound waited HardGrace.
func TestScriptMemoryBounded(t *testing.T) {
	e := New(nil)
	var aborted error
	e.abort = func(err error) { aborted = err } // the interrupt must stop it: ending crank would be wrong
	start := time.Now()
	err := e.Run("onConfigure of service \"x\" (bomb.yml)", `var s = "x"; for (var i = 0; i < 40; i++) { s = s + s; } job.arguments = s.length;`)
	if err == nil || !strings.Contains(err.Error(), "used more than") || !strings.Contains(err.Error(), "bomb.yml") {
		t.Fatalf("error %v, want the memory bound naming the file", err)
	}
	if aborted != nil {
		t.Errorf("the process would have ended (%v): the interrupt stops a doubling string at its next instruction", aborted)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s", took)
	}
}
