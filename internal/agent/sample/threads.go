package sample

// threadTimes is one read of the threads of a set of processes: each thread's cumulative CPU
// seconds, keyed as processes are (a thread id is a pid of the same space, and may be reused).
type threadTimes map[procKey]float64

// busiestThread is the CPU, in percent of one core, of the thread that used the most between two
// reads wall seconds apart: a thread that appeared meanwhile counts with all its time (as
// cpuDelta counts a new process). ok is false when there is no earlier read or no thread in
// this one: the figure is then unknown, not 0.
func busiestThread(prev, cur threadTimes, wall float64) (pct float64, ok bool) {
	if prev == nil || len(cur) == 0 || wall <= 0 {
		return 0, false
	}
	var most float64
	for k, c := range cur {
		most = max(most, c-prev[k])
	}
	return most / wall * 100, true
}
