package script

import (
	"runtime/metrics"
	"time"
)

// MaxScriptMemory bounds how much the heap may grow while a script runs: crank's scripts shape
// results and jobs, a few kilobytes; a script doubling a string would otherwise take the machine's
// memory before its time runs out.
const MaxScriptMemory = 256 << 20

// HardScriptMemory is the least growth past which an interrupted script ends the process
// HardGrace after its interrupt (hardLimit gives the bound itself).
const HardScriptMemory = 8 * MaxScriptMemory

// UnderWayGrowth is how many times the heap's growth may multiply after the interrupt is set
// before the script is taken for a built-in call allocating in a loop of its own. The
// instruction under way when the interrupt came ends before it is seen, and it may at most
// double the largest value (s + s allocates twice s, and s is part of what had grown): the
// heap may triple. new Array(1e9).fill(1) grows without end.
const UnderWayGrowth = 4

// HardGrace is how long after its interrupt a script's heap may be past its hard bound.
const HardGrace = 2 * time.Second

// hardLimit is the growth past which an interrupted script ends the process, given the growth
// when its interrupt was set. A fixed bound was wrong on a busy machine: a make test saw the
// heap's check come late, the string reach 1 GB or more before the interrupt, the doubling
// under way take the heap to 3.5 GB and, its copy taking over HardGrace, the test process end
// although the interrupt would have stopped the script at its next instruction.
func hardLimit(grewAtInterrupt uint64) uint64 {
	return max(HardScriptMemory, UnderWayGrowth*grewAtInterrupt)
}

// heapAlloc reads the heap's allocated bytes (garbage not yet collected included), counted when
// they are allocated. runtime/metrics, not runtime.ReadMemStats: that one stops the world, which
// waits for a copy under way (a string of 1 GB doubled copies for seconds, and a copy cannot be
// preempted), so the watcher saw the growth one or two doublings late, and each read paused the
// script.
func heapAlloc() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// watchMemory calls exceeded once when the heap (read by heap) has grown by more than
// MaxScriptMemory since it started, then hard while it has grown past hardLimit of its growth
// read again once exceeded returned (the interrupt set), until hard says it acted; it checks
// every 5 ms until stop is called.
func watchMemory(heap func() uint64, exceeded func(grew uint64), hard func(grew uint64) bool) (stop func()) {
	base := heap()
	growth := func() uint64 {
		if h := heap(); h > base {
			return h - base
		}
		return 0
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var limit uint64 // 0 until the interrupt
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				switch grew := growth(); {
				case limit == 0 && grew > MaxScriptMemory:
					exceeded(grew)
					limit = hardLimit(max(grew, growth()))
				case limit != 0 && grew > limit && hard(grew):
					return
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}
