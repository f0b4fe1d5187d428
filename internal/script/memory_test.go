package script

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// TestHardMemoryLimit: the hard bound is judged against the heap when the interrupt was set. Gate
// run 7 of issue 28 (d436c77) ended its test process in TestConfigurationBombs/script with "used
// more than 3583 MB of memory in a built-in call that cannot be interrupted": the machine was
// busy, the interrupt came with the doubled string past 1 GB, and the doubling under way took the
// heap to 3.5 GB, past the fixed 2 GB bound, for longer than HardGrace. The readings below are
// the heap's growth as the watcher reads it, one per tick.
func TestHardMemoryLimit(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name     string
		readings []uint64
		exceeded uint64   // growth given to exceeded (0: never called)
		hard     []uint64 // growths given to hard
	}{
		// The interrupt set at 1.2 GB (read again once set: 1.3 GB): the doubling under way ends at
		// 3.6 GB and stays there (garbage not yet collected), below 4 x 1.3 GB.
		{"late interrupt, doubling", []uint64{200 * mb, 1200 * mb, 1300 * mb, 3600 * mb, 3600 * mb, 3600 * mb}, 1200 * mb, nil},
		// new Array(1e9).fill(1): interrupted at 300 MB, it goes on growing, past 2 GB.
		{"fill", []uint64{300 * mb, 300 * mb, 1000 * mb, 2200 * mb, 2400 * mb}, 300 * mb, []uint64{2200 * mb, 2400 * mb}},
		// The same call interrupted late still ends once it has quadrupled since.
		{"late interrupt, fill", []uint64{1200 * mb, 1200 * mb, 3600 * mb, 5000 * mb}, 1200 * mb, []uint64{5000 * mb}},
		{"within bounds", []uint64{10 * mb, 200 * mb, 250 * mb}, 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			const base = 100 * mb
			var mu sync.Mutex
			readings := append([]uint64{0}, c.readings...)
			consumed := make(chan struct{})
			heap := func() uint64 {
				mu.Lock()
				defer mu.Unlock()
				r := readings[0]
				if len(readings) == 1 {
					select {
					case <-consumed:
					default:
						close(consumed)
					}
				} else {
					readings = readings[1:]
				}
				return base + r
			}
			var exceeded uint64
			var hard []uint64
			stop := watchMemory(heap, func(grew uint64) { exceeded = grew }, func(grew uint64) bool {
				hard = append(hard, grew)
				return false
			})
			select {
			case <-consumed:
			case <-time.After(10 * time.Second):
				t.Fatal("the watcher did not read the heap within 10 s")
			}
			stop()
			if exceeded != c.exceeded {
				t.Errorf("exceeded(%d MB), want %d MB", exceeded/mb, c.exceeded/mb)
			}
			// hard is called at every tick while past the bound: the last reading repeats.
			if got := slices.Compact(hard); !slices.Equal(got, c.hard) {
				t.Errorf("hard called with %v MB, want %v MB", mbs(got), mbs(c.hard))
			}
		})
	}
}

func mbs(bytes []uint64) []uint64 {
	out := make([]uint64, len(bytes))
	for i, b := range bytes {
		out[i] = b >> 20
	}
	return out
}
