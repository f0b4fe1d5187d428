package script

import (
	"sort"
	"strings"

	"github.com/dop251/goja"
)

// wrap gives a JSON-shaped Go value to scripts: maps as objects whose keys are found ignoring
// case, slices as arrays; changes made by scripts land in the same Go maps and slices.
// store, for a slice, puts it back where it came from when a script grows or shrinks it.
func (e *Engine) wrap(v any, store func([]any)) goja.Value {
	switch x := v.(type) {
	case map[string]any:
		return e.rt.NewDynamicObject(&foldMap{e: e, m: x})
	case []any:
		return e.rt.NewDynamicArray(&array{e: e, items: x, store: store})
	default:
		return e.rt.ToValue(x)
	}
}

// unwrap turns what a script stored back into a JSON-shaped Go value.
func unwrap(v goja.Value) any {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	return plain(v.Export())
}

func plain(x any) any {
	switch t := x.(type) {
	case *foldMap:
		return t.m
	case *array:
		return t.items
	case map[string]any:
		for k, v := range t {
			t[k] = plain(v)
		}
		return t
	case []any:
		for i, v := range t {
			t[i] = plain(v)
		}
		return t
	case int64:
		return float64(t)
	case int:
		return float64(t)
	default:
		return t
	}
}

// foldMap is a map whose keys scripts find ignoring case (crank's objects are C# objects).
type foldMap struct {
	e *Engine
	m map[string]any
}

func (f *foldMap) key(k string) string {
	if _, ok := f.m[k]; ok {
		return k
	}
	for kk := range f.m {
		if strings.EqualFold(kk, k) {
			return kk
		}
	}
	return k
}

func (f *foldMap) Get(k string) goja.Value {
	key := f.key(k)
	v, ok := f.m[key]
	if !ok {
		return nil
	}
	return f.e.wrap(v, func(items []any) { f.m[key] = items })
}

func (f *foldMap) Set(k string, v goja.Value) bool { f.m[f.key(k)] = unwrap(v); return true }

func (f *foldMap) Has(k string) bool { _, ok := f.m[f.key(k)]; return ok }

func (f *foldMap) Delete(k string) bool { delete(f.m, f.key(k)); return true }

func (f *foldMap) Keys() []string {
	ks := make([]string, 0, len(f.m))
	for k := range f.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// array is a slice scripts may read, change and grow.
type array struct {
	e     *Engine
	items []any
	store func([]any) // nil for a top-level slice
}

func (a *array) Len() int { return len(a.items) }

func (a *array) Get(i int) goja.Value {
	if i < 0 || i >= len(a.items) {
		return nil
	}
	return a.e.wrap(a.items[i], func(items []any) { a.items[i] = items })
}

func (a *array) Set(i int, v goja.Value) bool {
	if i < 0 {
		return false
	}
	if i >= len(a.items) {
		a.SetLen(i + 1)
	}
	a.items[i] = unwrap(v)
	return true
}

func (a *array) SetLen(n int) bool {
	if n < len(a.items) {
		a.items = a.items[:n]
	} else {
		a.items = append(a.items, make([]any, n-len(a.items))...)
	}
	if a.store != nil {
		a.store(a.items)
	}
	return true
}
