package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxVariablePasses bounds the rendering of variables that are templates of other variables.
const maxVariablePasses = 8

// renderVariables renders, in place, every variable value that is a template (at any depth)
// against all the variables, pass after pass until nothing changes. A rendered value that reads as
// an integer ("5000") becomes an integer, so Liquid comparisons such as `port > 1024` work.
// A variable that depends on itself, directly or not, is an error naming the cycle.
func renderVariables(e *engine, vars *node, where string) error {
	if cycles := findCycles(vars); len(cycles) > 0 {
		errs := make([]error, len(cycles))
		for i, c := range cycles {
			errs[i] = fmt.Errorf("%s: %s: variable %q refers to itself: %s", vars.pair(c[0]).keyPos, where, c[0], strings.Join(c, " -> "))
		}
		return errors.Join(errs...)
	}
	for range maxVariablePasses {
		snapshot, _ := vars.toAny().(map[string]any)
		var changed []string
		var errs []error
		for i := range vars.pairs {
			p := &vars.pairs[i]
			ch, err := renderTree(e, &p.value, snapshot, true, where, "variables."+p.key)
			if err != nil {
				errs = append(errs, err)
			}
			if ch {
				changed = append(changed, p.key)
			}
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		if len(changed) == 0 {
			return nil
		}
		if !anyMarkup(vars) {
			return nil
		}
	}
	return fmt.Errorf("%s: variables still change after %d rendering passes: %s", where, maxVariablePasses, strings.Join(markupVars(vars), ", "))
}

// renderTree renders every string with markup under *n (at key path) against vars; it reports
// whether anything changed. With retype, a result that is exactly an integer's decimal form becomes
// that integer. Errors name the position, where (scenario and service) and the key path.
func renderTree(e *engine, n **node, vars map[string]any, retype bool, where, path string) (bool, error) {
	cur := *n
	switch {
	case cur == nil:
		return false, nil
	case cur.isMap():
		return renderChildren(len(cur.pairs), func(i int) (bool, error) {
			return renderTree(e, &cur.pairs[i].value, vars, retype, where, joinKey(path, cur.pairs[i].key))
		})
	case cur.isList():
		return renderChildren(len(cur.items), func(i int) (bool, error) {
			return renderTree(e, &cur.items[i], vars, retype, where, fmt.Sprintf("%s[%d]", path, i))
		})
	}
	s, ok := cur.value.(string)
	if !ok || !hasMarkup(s) {
		return false, nil
	}
	out, err := render(e, s, vars)
	if err != nil {
		return false, fmt.Errorf("%s: %s: key %q: %w", cur.pos, where, path, err)
	}
	var v any = out
	if retype {
		if i, err := strconv.Atoi(out); err == nil && strconv.Itoa(i) == out {
			v = i
		}
	}
	*n = scalar(v, cur.pos)
	return out != s, nil
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func renderChildren(count int, each func(int) (bool, error)) (bool, error) {
	changed := false
	var errs []error
	for i := range count {
		ch, err := each(i)
		changed = changed || ch
		if err != nil {
			errs = append(errs, err)
		}
	}
	return changed, errors.Join(errs...)
}

func anyMarkup(n *node) bool {
	switch {
	case n == nil:
		return false
	case n.isMap():
		for _, p := range n.pairs {
			if anyMarkup(p.value) {
				return true
			}
		}
	case n.isList():
		for _, it := range n.items {
			if anyMarkup(it) {
				return true
			}
		}
	default:
		s, ok := n.value.(string)
		return ok && hasMarkup(s)
	}
	return false
}

func markupVars(vars *node) []string {
	var names []string
	for _, p := range vars.pairs {
		if anyMarkup(p.value) {
			names = append(names, p.key)
		}
	}
	return names
}

// collectStrings appends the templates under n (strings with markup), for the dependency scan.
func collectStrings(n *node, out *[]string) {
	eachString(n, func(s string) {
		if hasMarkup(s) {
			*out = append(*out, s)
		}
	})
}

// eachString calls f with every string under n.
func eachString(n *node, f func(string)) {
	switch {
	case n == nil:
	case n.isMap():
		for _, p := range n.pairs {
			eachString(p.value, f)
		}
	case n.isList():
		for _, it := range n.items {
			eachString(it, f)
		}
	default:
		if s, ok := n.value.(string); ok {
			f(s)
		}
	}
}

// findCycles returns the chains of variables whose templates refer back to the first
// ("a", "b", "a"), at most one per variable.
func findCycles(vars *node) [][]string {
	deps := dependencies(vars)
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(v string) []string {
		state[v] = active
		path = append(path, v)
		for _, d := range deps[v] {
			switch state[d] {
			case active:
				return append(slices.Clone(path[slices.Index(path, d):]), d)
			case unseen:
				if c := visit(d); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[v] = done
		return nil
	}
	var cycles [][]string
	for _, p := range vars.pairs {
		if state[p.key] != unseen {
			continue
		}
		if c := visit(p.key); c != nil {
			cycles = append(cycles, c)
		}
		for _, v := range path {
			state[v] = done
		}
		path = path[:0]
	}
	return cycles
}

// dependencies maps each variable to the variables its templates mention.
func dependencies(vars *node) map[string][]string {
	deps := map[string][]string{}
	for _, p := range vars.pairs {
		var srcs []string
		collectStrings(p.value, &srcs)
		for _, s := range srcs {
			for _, r := range references(s) {
				if vars.pair(r) != nil && !slices.Contains(deps[p.key], r) {
					deps[p.key] = append(deps[p.key], r)
				}
			}
		}
	}
	return deps
}
