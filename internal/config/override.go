package config

import (
	"fmt"
	"strings"
)

// Override is one `--<service>.<path> value` option: `--load.variables.connections 64` is
// Service "load", Path "variables.connections", Value "64".
type Override struct {
	Service, Path, Value string
}

func (o Override) String() string { return "--" + o.Service + "." + o.Path }

// ParseOverride splits a dynamic option's name (without its leading dashes, e.g.
// "load.variables.connections") into service and path.
func ParseOverride(flagName, value string) (Override, error) {
	name := strings.TrimLeft(flagName, "-")
	svc, path, ok := strings.Cut(name, ".")
	if !ok || svc == "" || path == "" {
		return Override{}, fmt.Errorf("option --%s: want --<service>.<key>[.<key>...] <value>, e.g. --load.variables.connections 64", name)
	}
	for _, seg := range strings.Split(path, ".") {
		if seg == "" {
			return Override{}, fmt.Errorf("option --%s: empty key in the path", name)
		}
	}
	return Override{Service: svc, Path: path, Value: value}, nil
}

// isJobSwap reports whether o changes the service's base job (`--load.job bombardier`).
func (o Override) isJobSwap() bool { return strings.EqualFold(o.Path, "job") }

// applyOverride sets o's value in the job tree. Keys along the path are matched ignoring case (as
// crank does) and created when missing. At the end of the path: a map gets one NAME=VALUE entry
// (`--application.environmentVariables GOGC=off`); a list from the files is replaced (by a
// `[a, b]` flow list or a one-item list) and a list the command line already set is added to
// (`--load.endpoints A --load.endpoints B`); anything else is replaced by the value read as a
// YAML scalar.
func applyOverride(job *node, o Override) error {
	pos := Pos{File: commandLine}
	segs := strings.Split(o.Path, ".")
	cur := job
	for i, seg := range segs {
		if !cur.isMap() {
			return fmt.Errorf("%s: %q is not a mapping, so it has no key %q", o, strings.Join(segs[:i], "."), seg)
		}
		p := cur.pairFold(seg)
		if p == nil {
			cur.pairs = append(cur.pairs, pair{key: seg, keyPos: pos})
			p = &cur.pairs[len(cur.pairs)-1]
			if i == len(segs)-1 {
				p.value = containerFor(segs, pos)
			}
		}
		if i < len(segs)-1 {
			if p.value.isNull() {
				p.value = newMap(pos)
			}
			cur = p.value
			continue
		}
		v, err := overrideValue(p.value, o, pos)
		if err != nil {
			return err
		}
		p.value, p.keyPos = v, pos
	}
	return nil
}

// containerFor returns an empty mapping or list for job keys that hold one (so
// `--application.endpoints http://...` makes a list even when no file set endpoints), else nil.
func containerFor(segs []string, pos Pos) *node {
	if len(segs) != 1 {
		return nil
	}
	switch strings.ToLower(segs[0]) {
	case "environmentvariables", "variables":
		return newMap(pos)
	case "endpoints", "counters":
		return &node{kind: kindList, pos: pos}
	}
	return nil
}

func overrideValue(old *node, o Override, pos Pos) (*node, error) {
	switch {
	case old.isMap():
		name, val, ok := strings.Cut(o.Value, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%s is a mapping: give NAME=VALUE, not %q", o, o.Value)
		}
		m := old.clone()
		m.set(name, pos, scalar(parseScalarText(val), pos))
		return m, nil
	case old.isList() && old.pos.File == commandLine:
		l := old.clone() // repeated on the command line: add, as crank's "can be used multiple times"
		l.items = append(l.items, parseListText(o.Value, pos).items...)
		return l, nil
	case old.isList():
		return parseListText(o.Value, pos), nil
	default:
		return scalar(parseScalarText(o.Value), pos), nil
	}
}
