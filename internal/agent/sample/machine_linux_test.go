package sample

import (
	"math"
	"testing"
)

// TestMachineSteal: /proc/stat's steal column (the 8th) is the share of the machine's CPU time its
// hypervisor gave to other guests; it counts as busy (the CPU was not this machine's to idle on)
// and is reported on its own.
func TestMachineSteal(t *testing.T) {
	prev, err := parseMachine("cpu  1000 0 500 8000 100 0 50 350 0 0")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := parseMachine("cpu  1100 0 550 8200 100 0 50 450 0 0")
	if err != nil {
		t.Fatal(err)
	}
	busy, steal := cur.since(prev)
	// 450 jiffies passed: 100 user + 50 system + 100 steal busy, 200 idle.
	if math.Abs(busy-100*250.0/450) > 1e-9 || math.Abs(steal-100*100.0/450) > 1e-9 {
		t.Errorf("busy %.2f %%, steal %.2f %%; want 55.56 %% and 22.22 %%", busy, steal)
	}
	if _, err := parseMachine("intr 1 2 3"); err == nil {
		t.Error("a line that is not the cpu line: no error")
	}
	if b, s := prev.since(prev); b != 0 || s != 0 {
		t.Errorf("no time passed: busy %v, steal %v; want 0", b, s)
	}
}
