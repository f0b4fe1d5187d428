// Package script runs crank's JavaScript (onConfigure, onResultsCreating, onResultsCreated,
// named scripts, and the aggregate and reduce functions of result definitions) with goja.
// Objects given to scripts are plain JSON-shaped values whose keys are found ignoring case, as
// crank's C# objects are (job.Variables and job.variables are the same).
package script

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/crankshaft/crankshaft/internal/termtext"
)

// DefaultTimeout bounds one script's run.
const DefaultTimeout = 10 * time.Second

// Engine is one JavaScript runtime: scripts run in it share their globals, as in crank.
// An Engine is not safe for concurrent use.
type Engine struct {
	rt      *goja.Runtime
	timeout time.Duration
	abort   func(error)   // a script that cannot be stopped (exitAbort)
	grace   time.Duration // how long an interrupted script may take to stop before abort (AbortGrace)
	heap    func() uint64 // the heap's size as the memory watcher reads it (heapAlloc)
	// distrusted names the first script from a URL given to Distrust: from then on fs refuses.
	distrusted string
}

// Distrust takes fs away from the engine for good: where (a script loaded from a URL) will run in
// it. For good, since a script may replace globals (functions, JSON, fs itself) that scripts run
// later would call.
func (e *Engine) Distrust(where string) {
	if e.distrusted == "" {
		e.distrusted = where
	}
}

// New returns an engine with console (to out), crank's fs object (fs.go) and crank's aggregate
// functions defined.
func New(out io.Writer) *Engine {
	rt := goja.New()
	e := &Engine{rt: rt, timeout: DefaultTimeout, abort: exitAbort, heap: heapAlloc, grace: AbortGrace}
	if out == nil {
		out = io.Discard
	}
	console := rt.NewObject()
	for _, level := range []string{"log", "info", "warn", "error", "debug"} {
		_ = console.Set(level, func(call goja.FunctionCall) goja.Value {
			parts := make([]string, len(call.Arguments))
			for i, a := range call.Arguments {
				parts[i] = a.String()
			}
			// A script (from a fetched configuration, or printing what a job measured) must not
			// act on the terminal: escape sequences print as text, its own line breaks are kept.
			fmt.Fprintln(out, termtext.Lines(strings.Join(parts, " ")))
			return goja.Undefined()
		})
	}
	_ = rt.Set("console", console)
	_ = rt.Set("fs", rt.NewDynamicObject(e.newFS()))
	if _, err := rt.RunScript("aggregates.js", aggregates); err != nil {
		panic(fmt.Sprintf("script: built-in functions: %v", err)) // a bug in aggregates
	}
	return e
}

// Error is a script that failed: where it came from and the script's own message.
type Error struct {
	Where   string // "onConfigure of service \"load\" (scenario.yml)"
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Where, e.Message) }

// Run runs src; where names the script in errors (its file and key).
func (e *Engine) Run(where, src string) error {
	// A script is interrupted between its instructions; one built-in call (new Array(1e9).fill(1)
	// grew crank to 24 GB over 11 minutes) is not. One still running AbortGrace after its
	// interrupt, or whose heap is past its hard bound (memory.go) HardGrace after it, ends the
	// process (e.abort). Not at once: the instruction under way when the interrupt came (a
	// string of 1 GB doubled) ends before the interrupt is seen.
	var stuck *time.Timer
	var interrupted time.Time
	var mu sync.Mutex
	interrupt := func(why string) {
		e.rt.Interrupt(why)
		mu.Lock()
		defer mu.Unlock()
		if stuck == nil {
			interrupted = time.Now()
			stuck = time.AfterFunc(e.grace, func() {
				e.abort(&Error{Where: where, Message: why + ", and a built-in call it made did not stop within " + e.grace.String()})
			})
		}
	}
	t := time.AfterFunc(e.timeout, func() { interrupt("timed out after " + e.timeout.String()) })
	defer t.Stop()
	stop := watchMemory(e.heap, func(grew uint64) {
		interrupt(fmt.Sprintf("used more than %d MB of memory (a string or array doubled in a loop?)", grew>>20))
	}, func(grew uint64) bool {
		mu.Lock()
		late := !interrupted.IsZero() && time.Since(interrupted) >= HardGrace
		mu.Unlock()
		if late {
			e.abort(&Error{Where: where, Message: fmt.Sprintf("used more than %d MB of memory in a built-in call that cannot be interrupted", grew>>20)})
		}
		return late
	})
	defer stop()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		if stuck != nil {
			stuck.Stop()
		}
	}()
	defer e.rt.ClearInterrupt()
	_, err := e.rt.RunScript(where, src)
	return scriptError(where, err)
}

// AbortGrace is how long an interrupted script may take to stop before the process ends: long
// enough for the instruction under way (a string of 400 MB doubled on a host taking a third of
// the CPU took over 2 s in a make test), short beside what it bounds (new Array(1e9).fill(1)
// grew for 11 minutes).
const AbortGrace = 10 * time.Second

// BeforeAbort gives the engine what to do before a script that cannot be stopped ends the process:
// crank writes the run's measured results first, so that a result script's runaway built-in call
// does not lose them, and keep's answer is the exit status.
func (e *Engine) BeforeAbort(keep func(error) int) {
	e.abort = func(err error) {
		fmt.Fprintf(os.Stderr, "crank: %v\n", err)
		os.Exit(keep(err))
	}
}

// exitAbort is the default abort: nothing else can stop a goja built-in call, so the process
// ends, saying which script did it.
func exitAbort(err error) {
	fmt.Fprintf(os.Stderr, "crank: %v\n", err)
	os.Exit(2)
}

func scriptError(where string, err error) error {
	if err == nil {
		return nil
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		msg := ex.Value().String()
		if obj, ok := ex.Value().(*goja.Object); ok && obj.Get("message") != nil {
			msg = obj.Get("message").String()
		}
		return &Error{Where: where, Message: msg}
	}
	var in *goja.InterruptedError
	if errors.As(err, &in) {
		return &Error{Where: where, Message: fmt.Sprint(in.Value())}
	}
	return &Error{Where: where, Message: err.Error()}
}

// Set makes a JSON-shaped value (maps, slices, scalars) a global; maps are found ignoring case.
func (e *Engine) Set(name string, v any) {
	_ = e.rt.Set(name, e.wrap(v, nil))
}

// Has tells whether a global function or value of that name exists.
func (e *Engine) Has(name string) bool {
	v := e.rt.Get(name)
	return v != nil && !goja.IsUndefined(v)
}

// Call calls the global function name with values and returns its result as a Go value
// (float64 for numbers).
func (e *Engine) Call(name string, values []float64) (any, error) {
	fn, ok := goja.AssertFunction(e.rt.Get(name))
	if !ok {
		return nil, fmt.Errorf("no function %q", name)
	}
	arr := make([]any, len(values))
	for i, v := range values {
		arr[i] = v
	}
	res, err := fn(goja.Undefined(), e.rt.NewArray(arr...))
	if err != nil {
		return nil, scriptError(name, err)
	}
	out := res.Export()
	if i, ok := out.(int64); ok {
		return float64(i), nil
	}
	return out, nil
}

// JSON turns a Go value into the JSON-shaped tree scripts see (and Set expects).
func JSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(b, &out)
}

// FromJSON writes a JSON-shaped tree (as changed by scripts) back into a Go value.
func FromJSON(tree, dst any) error {
	b, err := json.Marshal(tree)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

// SetRequire defines crank's require(name): it runs the named script (found by lookup) in this
// engine; an unknown name throws, listing none.
func (e *Engine) SetRequire(lookup func(name string) (where, src string, ok bool)) {
	_ = e.rt.Set("require", func(call goja.FunctionCall) goja.Value {
		name := call.Argument(0).String()
		where, src, ok := lookup(name)
		if !ok {
			panic(e.rt.NewGoError(fmt.Errorf("require(%q): no script of that name under the configuration's scripts", name)))
		}
		if _, err := e.rt.RunScript(where, src); err != nil {
			panic(e.rt.NewGoError(scriptError(where, err)))
		}
		return goja.Undefined()
	})
}
