package config

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Pos is where a value was written: a file (or URL) and line, or the command line.
type Pos struct {
	File string
	Line int
}

// commandLine is the Pos.File of values given as options.
const commandLine = "command line"

func (p Pos) String() string {
	switch {
	case p.File == "":
		return "<unknown>"
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return p.File
	}
}

type kind uint8

const (
	kindScalar kind = iota
	kindMap
	kindList
)

// node is a YAML value that remembers where it was written, so errors found after merging,
// overriding and rendering can still name the file and line of the offending key.
type node struct {
	kind  kind
	pos   Pos
	value any // scalar: string, int, float64, bool or nil
	pairs []pair
	items []*node
}

// pair is one key of a map, in document order.
type pair struct {
	key    string
	keyPos Pos
	value  *node
}

func scalar(v any, pos Pos) *node { return &node{kind: kindScalar, value: v, pos: pos} }

func newMap(pos Pos) *node { return &node{kind: kindMap, pos: pos} }

func (n *node) isMap() bool  { return n != nil && n.kind == kindMap }
func (n *node) isList() bool { return n != nil && n.kind == kindList }
func (n *node) isNull() bool { return n == nil || (n.kind == kindScalar && n.value == nil) }

// get returns the value of key in a map node (nil when absent or n is not a map).
func (n *node) get(key string) *node {
	if p := n.pair(key); p != nil {
		return p.value
	}
	return nil
}

func (n *node) pair(key string) *pair {
	if !n.isMap() {
		return nil
	}
	for i := range n.pairs {
		if n.pairs[i].key == key {
			return &n.pairs[i]
		}
	}
	return nil
}

// pairFold finds key ignoring case, as crank does for command-line paths.
func (n *node) pairFold(key string) *pair {
	if p := n.pair(key); p != nil {
		return p
	}
	if !n.isMap() {
		return nil
	}
	for i := range n.pairs {
		if strings.EqualFold(n.pairs[i].key, key) {
			return &n.pairs[i]
		}
	}
	return nil
}

// set replaces or appends key in a map node.
func (n *node) set(key string, keyPos Pos, v *node) {
	if p := n.pair(key); p != nil {
		p.value = v
		return
	}
	n.pairs = append(n.pairs, pair{key: key, keyPos: keyPos, value: v})
}

// without returns a shallow copy of a map node minus the given keys.
func (n *node) without(keys ...string) *node {
	out := &node{kind: kindMap, pos: n.pos}
	for _, p := range n.pairs {
		if !slices.Contains(keys, p.key) {
			out.pairs = append(out.pairs, p)
		}
	}
	return out
}

func (n *node) keys() []string {
	ks := make([]string, 0, len(n.pairs))
	for _, p := range n.pairs {
		ks = append(ks, p.key)
	}
	return ks
}

// str returns a scalar's text, and whether n is a non-null scalar.
func (n *node) str() (string, bool) {
	if n == nil || n.kind != kindScalar || n.value == nil {
		return "", false
	}
	return scalarText(n.value), true
}

func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := &node{kind: n.kind, pos: n.pos, value: n.value}
	if n.pairs != nil {
		c.pairs = make([]pair, len(n.pairs))
		for i, p := range n.pairs {
			c.pairs[i] = pair{key: p.key, keyPos: p.keyPos, value: p.value.clone()}
		}
	}
	if n.items != nil {
		c.items = make([]*node, len(n.items))
		for i, it := range n.items {
			c.items[i] = it.clone()
		}
	}
	return c
}

// toAny turns the tree into plain Go values (map[string]any, []any, scalars) for Liquid and JSON.
func (n *node) toAny() any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case kindMap:
		m := make(map[string]any, len(n.pairs))
		for _, p := range n.pairs {
			m[p.key] = p.value.toAny()
		}
		return m
	case kindList:
		l := make([]any, len(n.items))
		for i, it := range n.items {
			l[i] = it.toAny()
		}
		return l
	default:
		return n.value
	}
}

// fromAny builds a tree from plain Go values; every node gets pos.
func fromAny(v any, pos Pos) *node {
	switch x := v.(type) {
	case map[string]any:
		n := newMap(pos)
		ks := make([]string, 0, len(x))
		for k := range x {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			n.pairs = append(n.pairs, pair{key: k, keyPos: pos, value: fromAny(x[k], pos)})
		}
		return n
	case []any:
		n := &node{kind: kindList, pos: pos, items: make([]*node, len(x))}
		for i, it := range x {
			n.items[i] = fromAny(it, pos)
		}
		return n
	default:
		return scalar(x, pos)
	}
}
