package profiles

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// Func is one function's share of a profile's value (its last sample type: CPU time, lock wait).
type Func struct {
	Name string `json:"name"`
	// File and Line are where the function is (Go's profiles), or empty (perf's, without lines).
	File string `json:"file,omitempty"`
	Line int64  `json:"line,omitempty"`
	// Flat is the value in the function itself, Cum with what it called, in the profile's Unit.
	Flat int64 `json:"flat"`
	Cum  int64 `json:"cum"`
	// Share is Flat over the profile's total (0-1).
	Share float64 `json:"share"`
}

// Where names the function for a person: "main.spin (main.go:31)".
func (f Func) Where() string {
	if f.File == "" {
		return f.Name
	}
	file := f.File[strings.LastIndex(f.File, "/")+1:]
	return fmt.Sprintf("%s (%s:%d)", f.Name, file, f.Line)
}

// valueIndex is the sample type a profile is ranked by: its last (CPU nanoseconds, lock delay).
func valueIndex(p *profile.Profile) int { return len(p.SampleType) - 1 }

// Unit is the unit of the value Top ranks by ("nanoseconds").
func Unit(p *profile.Profile) string {
	if len(p.SampleType) == 0 {
		return ""
	}
	return p.SampleType[valueIndex(p)].Unit
}

// Total is the profile's value summed over its samples.
func Total(p *profile.Profile) int64 {
	var t int64
	i := valueIndex(p)
	for _, s := range p.Sample {
		if i < len(s.Value) {
			t += s.Value[i]
		}
	}
	return t
}

// Top is the profile's n functions with the most value in them (flat), most first.
func Top(p *profile.Profile, n int) []Func {
	byName := map[string]*Func{}
	i := valueIndex(p)
	for _, s := range p.Sample {
		if i >= len(s.Value) {
			continue
		}
		seen := map[string]bool{}
		for k, l := range s.Location {
			for j := len(l.Line) - 1; j >= 0; j-- { // inlined frames first, caller last
				f := funcOf(byName, l.Line[j])
				if k == 0 && j == 0 {
					f.Flat += s.Value[i]
				}
				if !seen[f.Name] {
					f.Cum += s.Value[i]
					seen[f.Name] = true
				}
			}
		}
	}
	return rank(byName, Total(p), n)
}

func funcOf(byName map[string]*Func, ln profile.Line) *Func {
	name := "[unknown]"
	var file string
	if ln.Function != nil {
		name, file = ln.Function.Name, ln.Function.Filename
	}
	f, ok := byName[name]
	if !ok {
		f = &Func{Name: name, File: file, Line: ln.Line}
		if ln.Function != nil && ln.Line == 0 {
			f.Line = ln.Function.StartLine
		}
		byName[name] = f
	}
	return f
}

func rank(byName map[string]*Func, total int64, n int) []Func {
	out := make([]Func, 0, len(byName))
	for _, f := range byName {
		if total > 0 {
			f.Share = float64(f.Flat) / float64(total)
		}
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b Func) int {
		return cmp.Or(cmp.Compare(b.Flat, a.Flat), cmp.Compare(b.Cum, a.Cum), strings.Compare(a.Name, b.Name))
	})
	return out[:min(n, len(out))]
}

// CallSite is where most of a profile's value was spent from the program's own code: each
// sample's first frame outside the runtime and the sync package, with its line (a mutex profile's
// lock call site). ok is false for an empty profile.
func CallSite(p *profile.Profile) (site Func, ok bool) {
	byWhere := map[string]*Func{}
	i := valueIndex(p)
	for _, s := range p.Sample {
		if i >= len(s.Value) {
			continue
		}
		if ln, found := firstOwn(s); found {
			name := ln.Function.Name
			key := fmt.Sprintf("%s:%d", name, ln.Line)
			f, seen := byWhere[key]
			if !seen {
				f = &Func{Name: name, File: ln.Function.Filename, Line: ln.Line}
				byWhere[key] = f
			}
			f.Flat += s.Value[i]
		}
	}
	top := rank(byWhere, Total(p), 1)
	if len(top) == 0 || top[0].Flat <= 0 {
		return Func{}, false
	}
	return top[0], true
}

func firstOwn(s *profile.Sample) (profile.Line, bool) {
	for _, l := range s.Location {
		for j := len(l.Line) - 1; j >= 0; j-- {
			ln := l.Line[j]
			if ln.Function == nil {
				continue
			}
			if n := ln.Function.Name; !strings.HasPrefix(n, "runtime.") && !strings.HasPrefix(n, "sync.") && !strings.HasPrefix(n, "internal/sync.") {
				return ln, true
			}
		}
	}
	return profile.Line{}, false
}
