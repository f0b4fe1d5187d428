// Package flags reads every crank command's command line in one style: --name value or
// --name=value (one dash as well as two), flags before, between or after the other arguments,
// "--" ends the flags, -h or --help asks for help, names match whatever their case unless a
// command's spellings need case (crank load's wrk-style -t and -T), and a bad flag is an error
// naming it, with the nearest known name when it is unknown.
//
// A Set declares a command's own flags; Parse refuses arguments that look like flags it does not
// declare. Split takes a command's own flags out and keeps the others, in order, for another
// parser (crank's run options, whose names such as --application.variables.x cannot be declared
// in advance). Values are flag.Value, so a
// command's own kinds (a fraction, a repeatable list) serve here as they did with package flag.
//
// The standard library's flag package stops at the first positional argument, knows only one
// case, and words its errors its own way; github.com/spf13/pflag reads "-metric" as the short
// flags m, e, t, ... and cannot keep unknown flags for another parser. crank's own spellings
// need both, so the lexing lives here, small, under one test.
package flags

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/suggest"
)

// ErrHelp is returned by Parse and Split when -h or --help is given and not declared.
var ErrHelp = flag.ErrHelp

// Error is a bad flag: unknown, without its value, or with a value its kind refuses.
type Error struct {
	Flag    string // the name as given, without dashes
	Unknown bool   // no such flag; Hint is then the nearest known name ("" when none is near)
	Hint    string
	Value   string // the value refused, and why (Err); both empty when the value is missing
	Err     error
}

func (e *Error) Error() string {
	switch {
	case e.Unknown && e.Hint != "":
		return fmt.Sprintf("unknown flag --%s (did you mean --%s?)", e.Flag, e.Hint)
	case e.Unknown:
		return "unknown flag --" + e.Flag
	case e.Err == nil:
		return "flag --" + e.Flag + " needs a value"
	}
	if strings.Contains(e.Err.Error(), strconv.Quote(e.Value)) { // the value's own error names it
		return fmt.Sprintf("flag --%s: %v", e.Flag, e.Err)
	}
	return fmt.Sprintf("flag --%s: invalid value %q: %v", e.Flag, e.Value, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Cut reads one argument: whether it is a flag (it starts with "-" and is neither "-" nor "--"),
// its name without dashes, and its value after "=" when it has one.
func Cut(arg string) (name, value string, hasValue, isFlag bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return "", "", false, false
	}
	name, value, hasValue = strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name, value, hasValue, true
}

// Fold is a name as crank compares it: whatever its case, unless it holds a dot (a service
// override such as application.variables.Name, whose variable names are case-sensitive).
func Fold(name string) string {
	if strings.Contains(name, ".") {
		return name
	}
	return strings.ToLower(name)
}

// Value is the value of the flag at args[*i]: the one after its "=", else the next argument
// (then *i moves past it).
func Value(args []string, i *int, name, value string, hasValue bool) (string, error) {
	if hasValue {
		return value, nil
	}
	if *i+1 >= len(args) {
		return "", &Error{Flag: name}
	}
	*i++
	return args[*i], nil
}

// Split reads the flags named in valued (each takes a value) and switches (none) out of args,
// giving each to set in order, and returns the other arguments in order. Names are compared as
// norm returns them (nil: as given).
func Split(args, valued, switches []string, norm func(string) string, set func(name, value string, hasValue bool) error) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		name, value, hasValue, isFlag := Cut(args[i])
		if norm != nil {
			name = norm(name)
		}
		switch {
		case !isFlag:
			rest = append(rest, args[i])
			continue
		case slices.Contains(valued, name):
			v, err := Value(args, &i, name, value, hasValue)
			if err != nil {
				return nil, err
			}
			value, hasValue = v, true
		case !slices.Contains(switches, name):
			rest = append(rest, args[i])
			continue
		}
		if err := set(name, value, hasValue); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// unknown is the error for a flag no Set declares, with the nearest declared name.
func unknown(name string, known []string) error {
	return &Error{Flag: name, Unknown: true, Hint: suggest.Near(name, known)}
}

// IsHelp says whether err asks for the help text.
func IsHelp(err error) bool { return errors.Is(err, ErrHelp) }
