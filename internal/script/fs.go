package script

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/dop251/goja"
)

// crank gives its scripts an `fs` object with three functions, paths as given (a relative path
// is relative to the working directory crank runs in):
//   - readFile(name): the file's text; null for an empty name; an error when it cannot be read;
//   - writeFile(name, data): writes data (null: nothing) as the whole file, creating it or
//     replacing what it held; nothing for an empty name; an error when it cannot be written
//     (a missing folder included);
//   - exists(name): whether name is a file (not a folder); false for an empty name.
// Their names are found ignoring case, as crank's C# methods are. An error throws in the script,
// and the script's error names the script and the call.

// fsObject is crank's fs object: its functions by lower-case name.
type fsObject struct {
	fns map[string]goja.Value
}

func (e *Engine) newFS() *fsObject {
	fail := func(format string, args ...any) {
		panic(e.rt.NewGoError(fmt.Errorf(format, args...)))
	}
	name := func(call goja.FunctionCall) string {
		v := call.Argument(0)
		if goja.IsUndefined(v) || goja.IsNull(v) {
			return ""
		}
		return v.String()
	}
	fns := map[string]func(goja.FunctionCall) goja.Value{
		"readfile": func(call goja.FunctionCall) goja.Value {
			n := name(call)
			if n == "" {
				return goja.Null()
			}
			b, err := os.ReadFile(n)
			if err != nil {
				fail("fs.readFile(%q): %v", n, pathErr(err))
			}
			return e.rt.ToValue(string(b))
		},
		"writefile": func(call goja.FunctionCall) goja.Value {
			n := name(call)
			if n == "" {
				return goja.Undefined()
			}
			data := ""
			if v := call.Argument(1); !goja.IsUndefined(v) && !goja.IsNull(v) {
				data = v.String()
			}
			if err := os.WriteFile(n, []byte(data), 0o644); err != nil {
				fail("fs.writeFile(%q): %v", n, pathErr(err))
			}
			return goja.Undefined()
		},
		"exists": func(call goja.FunctionCall) goja.Value {
			n := name(call)
			if n == "" {
				return e.rt.ToValue(false)
			}
			fi, err := os.Stat(n)
			return e.rt.ToValue(err == nil && fi.Mode().IsRegular())
		},
	}
	o := &fsObject{fns: map[string]goja.Value{}}
	spelled := map[string]string{"readfile": "readFile", "writefile": "writeFile", "exists": "exists"}
	for k, f := range fns {
		o.fns[k] = e.rt.ToValue(func(call goja.FunctionCall) goja.Value {
			if e.distrusted != "" {
				fail("fs.%s: not available: this engine ran %s, loaded from a URL (a configuration fetched over the network may not read or write this machine's files)", spelled[k], e.distrusted)
			}
			return f(call)
		})
	}
	return o
}

// pathErr is the error without the path, which the message already names.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (o *fsObject) Get(k string) goja.Value     { return o.fns[strings.ToLower(k)] }
func (o *fsObject) Set(string, goja.Value) bool { return false }
func (o *fsObject) Has(k string) bool           { _, ok := o.fns[strings.ToLower(k)]; return ok }
func (o *fsObject) Delete(string) bool          { return false }

// Keys are crank's spellings.
func (o *fsObject) Keys() []string {
	ks := []string{"exists", "readFile", "writeFile"}
	sort.Strings(ks)
	return ks
}
