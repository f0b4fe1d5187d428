package loadtool

import (
	"fmt"
	"strings"
)

// Problem is a setting a load's variables ask for that its tool does not honour.
type Problem struct {
	Tool    string
	Setting string
	Value   any
	// Refused: the run would measure another load than the one asked, so it does not start.
	// Otherwise the setting changes only the tool's own resources, and is said (a warning).
	Refused bool
	// Why the tool does not honour it.
	Why string
	// Can are the tools that honour it, each with how ("builtin (--rate: ...)").
	Can []string
}

// String is the problem in one sentence, naming the setting, the tool and the tools that can.
func (p Problem) String() string {
	if !p.Refused {
		return fmt.Sprintf("%s does not use %s %v: %s", p.Tool, p.Setting, p.Value, p.Why)
	}
	msg := fmt.Sprintf("%s cannot honour %s %v: %s", p.Tool, p.Setting, p.Value, p.Why)
	if len(p.Can) > 0 {
		msg += "; a tool that can: " + strings.Join(p.Can, ", ")
	}
	return msg
}

// asks tells whether a setting's value asks something of the tool: a rate above 0, more than one
// request in flight per connection (pipeline, streams), a number of threads. Connections,
// duration and warm-up every tool honours.
func asks(setting string, v any) bool {
	n, ok := Number(v)
	switch setting {
	case Rate:
		return ok && n > 0
	case Pipeline, Streams:
		return ok && n > 1
	case Threads:
		return ok && n > 0
	}
	return false
}

// Check lists the settings a load job's variables ask for that its tool (known by its parser and
// program) does not honour, in Settings' order. A job that is no known tool has none: its
// settings are its own.
func Check(parser, executable string, vars map[string]any) []Problem {
	t, ok := find(parser, executable)
	if !ok {
		return nil
	}
	var out []Problem
	for _, name := range Settings {
		v, set := vars[name]
		if !set || !asks(name, v) {
			continue
		}
		s := t.settings[name]
		ok, why := s.honoured(vars)
		if ok {
			continue
		}
		out = append(out, Problem{Tool: t.name, Setting: name, Value: v, Refused: s.warnOnly == "",
			Why: why, Can: canHonour(name, t.name)})
	}
	return out
}

// canHonour names the other tools that honour a setting, with how, in the table's order.
func canHonour(setting, except string) []string {
	var out []string
	for _, t := range tools {
		if s := t.settings[setting]; t.name != except && s.how != "" {
			out = append(out, fmt.Sprintf("%s (%s)", t.name, s.how))
		}
	}
	return out
}
