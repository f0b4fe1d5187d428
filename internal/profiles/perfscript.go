// Package profiles holds what crank and its agent share about profiles: perf's `perf script` text
// read into the pprof format, a profile's top functions, and the difference between two profiles
// per request. The agent's side (running perf, fetching Go's profiles) is agent/profiler.
package profiles

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// PerfFields are the fields ParsePerfScript reads: `perf script -F` with them.
const PerfFields = "comm,tid,time,period,event,ip,sym,dso"

// Bounds on what ParsePerfScript accepts: a longer line is an error, deeper stacks are cut.
const (
	maxLine   = 1 << 20
	maxFrames = 1024
)

// ParsePerfScript reads `perf script -F PerfFields` output into a CPU profile: one sample per
// stack, valued 1 and its period (nanoseconds of cpu-clock), frames named by their symbol (or
// [unknown]) and mapped to their binary. The profile's TimeNanos is its first sample's time and
// DurationNanos the span to its last, on perf's clock (Unix time when recorded with -k realtime).
func ParsePerfScript(r io.Reader) (*profile.Profile, error) {
	b := newBuilder()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var cur *perfSample
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			b.add(cur)
			cur = nil
		case line[0] == ' ' || line[0] == '\t':
			if cur == nil {
				return nil, fmt.Errorf("perf script: line %d: a frame before any sample", n)
			}
			f, err := parseFrame(line)
			if err != nil {
				return nil, fmt.Errorf("perf script: line %d: %w", n, err)
			}
			if len(cur.frames) < maxFrames {
				cur.frames = append(cur.frames, f)
			}
		default:
			b.add(cur)
			s, err := parseHeader(line)
			if err != nil {
				return nil, fmt.Errorf("perf script: line %d: %w", n, err)
			}
			cur = s
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	b.add(cur)
	return b.p, b.p.CheckValid()
}

type perfSample struct {
	period int64
	time   int64 // nanoseconds on perf's clock
	frames []frame
}

type frame struct {
	addr     uint64
	sym, dso string
}

// parseHeader reads "comm tid time: period event:" from its right end: comm may hold spaces.
func parseHeader(line string) (*perfSample, error) {
	f := strings.Fields(line)
	if len(f) < 5 {
		return nil, fmt.Errorf("sample header %q: want comm, tid, time, period and event", clip(line))
	}
	period, err := strconv.ParseInt(f[len(f)-2], 10, 64)
	if err != nil || period <= 0 {
		return nil, fmt.Errorf("sample header %q: period %q is not a positive number", clip(line), f[len(f)-2])
	}
	if !strings.HasSuffix(f[len(f)-3], ":") {
		return nil, fmt.Errorf("sample header %q: no time", clip(line))
	}
	return &perfSample{period: period, time: perfTime(strings.TrimSuffix(f[len(f)-3], ":"))}, nil
}

// perfTime reads perf script's "seconds.microseconds" as nanoseconds; 0 when it is not a time.
func perfTime(s string) int64 {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/int64(time.Second)-1 || len(frac) > 9 {
		return 0
	}
	ns := int64(0)
	if frac != "" {
		f, err := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil || f < 0 {
			return 0
		}
		ns = f
	}
	return n*int64(time.Second) + ns
}

// parseFrame reads "addr symbol (dso)"; the symbol may hold spaces and parentheses.
func parseFrame(line string) (frame, error) {
	s := strings.TrimSpace(line)
	addr, rest, ok := strings.Cut(s, " ")
	a, err := strconv.ParseUint(addr, 16, 64)
	if !ok || err != nil {
		return frame{}, fmt.Errorf("frame %q: no hexadecimal address", clip(s))
	}
	rest = strings.TrimSpace(rest)
	i := strings.LastIndex(rest, " (")
	if i < 0 || !strings.HasSuffix(rest, ")") {
		return frame{}, fmt.Errorf("frame %q: no (binary)", clip(s))
	}
	sym, dso := strings.TrimSpace(rest[:i]), rest[i+2:len(rest)-1]
	if sym == "" || sym == "[unknown]" {
		// perf could not name the code (the vDSO once the process is gone, a stripped binary, JIT
		// code without a perf map): say at least whose code it is, "[unknown] ([vdso])", so that a
		// verdict naming the hot function says where to look rather than "[unknown]".
		sym = "[unknown]"
		if dso != "" && dso != "[unknown]" {
			sym += " (" + path.Base(dso) + ")"
		}
	}
	return frame{addr: a, sym: sym, dso: dso}, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// builder makes a profile's locations, functions and mappings once each.
type builder struct {
	p     *profile.Profile
	locs  map[frame]*profile.Location
	funcs map[[2]string]*profile.Function
	maps  map[string]*profile.Mapping
}

func newBuilder() *builder {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
	}
	return &builder{p: p, locs: map[frame]*profile.Location{}, funcs: map[[2]string]*profile.Function{}, maps: map[string]*profile.Mapping{}}
}

func (b *builder) add(s *perfSample) {
	if s == nil || len(s.frames) == 0 {
		return
	}
	if b.p.Period == 0 {
		b.p.Period = s.period
	}
	if s.time > 0 {
		if b.p.TimeNanos == 0 || s.time < b.p.TimeNanos {
			b.p.DurationNanos += max(b.p.TimeNanos-s.time, 0)
			b.p.TimeNanos = s.time
		}
		b.p.DurationNanos = max(b.p.DurationNanos, s.time-b.p.TimeNanos)
	}
	ls := make([]*profile.Location, 0, len(s.frames))
	for _, f := range s.frames {
		ls = append(ls, b.location(f))
	}
	b.p.Sample = append(b.p.Sample, &profile.Sample{Location: ls, Value: []int64{1, s.period}})
}

func (b *builder) location(f frame) *profile.Location {
	if l, ok := b.locs[f]; ok {
		return l
	}
	m, ok := b.maps[f.dso]
	if !ok {
		m = &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: f.dso, Limit: ^uint64(0), HasFunctions: true}
		b.maps[f.dso] = m
		b.p.Mapping = append(b.p.Mapping, m)
	}
	key := [2]string{f.sym, f.dso}
	fn, ok := b.funcs[key]
	if !ok {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.sym, SystemName: f.sym}
		b.funcs[key] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Address: f.addr, Line: []profile.Line{{Function: fn}}}
	b.locs[f] = l
	b.p.Location = append(b.p.Location, l)
	return l
}
