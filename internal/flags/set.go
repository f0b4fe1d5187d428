package flags

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Set is a command's declared flags.
type Set struct {
	defs    []*def
	CaseSet bool // names must match in case (crank load: wrk's -t and -T); by default case is ignored
}

type def struct {
	names    []string // the first is the long name, the others its aliases
	usage    string
	value    flag.Value
	def      string // the default as shown in the usage ("" shows none)
	isSwitch bool
}

// boolFlag is a flag.Value that takes no value on the command line (as in package flag).
type boolFlag interface {
	flag.Value
	IsBoolFlag() bool
}

// Var declares a flag of any kind under its names (the long one first).
func (s *Set) Var(v flag.Value, usage string, names ...string) {
	b, isSwitch := v.(boolFlag)
	s.defs = append(s.defs, &def{names: names, usage: usage, value: v, def: v.String(), isSwitch: isSwitch && b.IsBoolFlag()})
}

// String declares a string flag; *p is its default.
func (s *Set) String(p *string, usage string, names ...string) {
	s.Var((*stringValue)(p), usage, names...)
}

// Int declares an integer flag; *p is its default.
func (s *Set) Int(p *int, usage string, names ...string) { s.Var((*intValue)(p), usage, names...) }

// Float declares a number flag; *p is its default.
func (s *Set) Float(p *float64, usage string, names ...string) {
	s.Var((*floatValue)(p), usage, names...)
}

// Duration declares a duration flag ("90s", "2m"); *p is its default.
func (s *Set) Duration(p *time.Duration, usage string, names ...string) {
	s.Var((*durationValue)(p), usage, names...)
}

// Bool declares a switch: --name sets it, --name=false clears it.
func (s *Set) Bool(p *bool, usage string, names ...string) { s.Var((*boolValue)(p), usage, names...) }

// Strings declares a repeatable flag: each use appends its value.
func (s *Set) Strings(p *[]string, usage string, names ...string) {
	s.Var((*stringsValue)(p), usage, names...)
}

// Func declares a flag whose value fn reads.
func (s *Set) Func(usage string, fn func(string) error, names ...string) {
	s.Var(funcValue(fn), usage, names...)
}

// Set gives the flag named name a value as if the command line had (a default from the
// environment, say).
func (s *Set) Set(name, value string) error {
	d := s.lookup(name)
	if d == nil {
		return unknown(name, s.names())
	}
	if err := d.value.Set(value); err != nil {
		return &Error{Flag: name, Value: value, Err: err}
	}
	return nil
}

// Parse reads args and returns the arguments that are not flags, in order; an argument that looks
// like a flag the Set does not declare is an error (-h and --help, when not declared, are ErrHelp).
// Everything after "--" is returned as is.
func (s *Set) Parse(args []string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			return append(rest, args[i+1:]...), nil
		}
		name, value, hasValue, isFlag := Cut(args[i])
		if !isFlag {
			rest = append(rest, args[i])
			continue
		}
		d := s.lookup(name)
		switch {
		case d == nil && (name == "h" || name == "help"):
			return nil, ErrHelp
		case d == nil:
			return nil, unknown(name, s.names())
		case d.isSwitch && !hasValue:
			value = "true"
		default:
			v, err := Value(args, &i, name, value, hasValue)
			if err != nil {
				return nil, err
			}
			value = v
		}
		if err := d.value.Set(value); err != nil {
			return nil, &Error{Flag: name, Value: value, Err: err}
		}
	}
	return rest, nil
}

func (s *Set) lookup(name string) *def {
	for _, d := range s.defs {
		for _, n := range d.names {
			if n == name || !s.CaseSet && strings.EqualFold(n, name) {
				return d
			}
		}
	}
	return nil
}

func (s *Set) names() []string {
	var out []string
	for _, d := range s.defs {
		out = append(out, d.names...)
	}
	return out
}

// Usage writes one line per flag, in the order declared: its names, a placeholder for its value,
// what it does and its default.
func (s *Set) Usage(w io.Writer) {
	for _, d := range s.defs {
		var names []string
		for _, n := range d.names {
			names = append(names, strings.Repeat("-", min(len(n), 2))+n) // -o, --output
		}
		line := "  " + strings.Join(names, ", ")
		if !d.isSwitch {
			line += " VALUE"
		}
		usage := d.usage
		if d.def != "" && d.def != "0" && d.def != "0s" && d.def != "false" && !strings.Contains(usage, "default") {
			usage += fmt.Sprintf(" (default %s)", d.def)
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, usage)
	}
}

type stringValue string

func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }
func (v *stringValue) String() string     { return string(*v) }

type intValue int

func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not a whole number")
	}
	*v = intValue(n)
	return nil
}
func (v *intValue) String() string { return strconv.Itoa(int(*v)) }

type floatValue float64

func (v *floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number")
	}
	*v = floatValue(f)
	return nil
}
func (v *floatValue) String() string { return strconv.FormatFloat(float64(*v), 'g', -1, 64) }

type durationValue time.Duration

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("not a duration (write 30s, 2m or 1h30m)")
	}
	*v = durationValue(d)
	return nil
}
func (v *durationValue) String() string { return time.Duration(*v).String() }

type boolValue bool

func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("not true or false")
	}
	*v = boolValue(b)
	return nil
}
func (v *boolValue) String() string   { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) IsBoolFlag() bool { return true }

type stringsValue []string

func (v *stringsValue) Set(s string) error { *v = append(*v, s); return nil }
func (v *stringsValue) String() string     { return strings.Join(*v, ",") }

type funcValue func(string) error

func (f funcValue) Set(s string) error { return f(s) }
func (f funcValue) String() string     { return "" }

// Fail says what err of Parse or Split means, the one way every command does: help asked for
// (ErrHelp) prints help to stdout and is exit status 0; any other error is one line on stderr,
// "cmd: err (cmd --help)", and exit status 2 (bad input).
func Fail(err error, cmd string, stdout, stderr io.Writer, help func(io.Writer)) int {
	if IsHelp(err) {
		help(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v (%s --help)\n", cmd, err, cmd)
	return 2
}
