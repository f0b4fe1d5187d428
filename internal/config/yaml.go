package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	goccyyaml "github.com/goccy/go-yaml"
	goccy "github.com/goccy/go-yaml/parser"
	"gopkg.in/yaml.v3"
)

// maxYAMLDepth bounds nesting (and alias expansion) so a hostile file cannot exhaust the stack.
const maxYAMLDepth = 64

// parseYAML reads the first YAML document of data into a node tree; name (a path or URL) goes into
// every position and into syntax errors ("scenarios/x.yml:3: did not find expected key").
// maxLocateBytes is the largest file goccy/go-yaml is asked to locate a syntax error in.
const maxLocateBytes = 1 << 20

func parseYAML(data []byte, name string) (*node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// A file yaml.v3 found nested too deep is not given to goccy/go-yaml, whose parser
		// takes memory quadratic in the nesting: 200 KB of '[' took crank to 15 GB in 23 s.
		// Nor is a file over maxLocateBytes: goccy takes about 150 times a file's size (an 8 MB
		// file of anchors took crank to 1.6 GB); yaml.v3's message names its line.
		if strings.Contains(err.Error(), "exceeded max depth") || len(data) > maxLocateBytes {
			return nil, yamlError(name, err)
		}
		if err := syntaxError(data, name); err != nil {
			return nil, err
		}
		return nil, yamlError(name, err)
	}
	if err := checkExpansion(&doc, name); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return newMap(Pos{File: name, Line: 1}), nil
	}
	return convert(doc.Content[0], name, 0)
}

// syntaxError says where a YAML syntax error is, to the line and column, with that line: yaml.v3
// names the line where the construct holding the error began, often the line before it or the
// file's first (go-yaml/yaml#835). goccy/go-yaml's parser is asked only once yaml.v3 has failed; nil
// when it finds no syntax error (the problem is then yaml.v3's alone, and its message is used).
func syntaxError(data []byte, name string) (found error) {
	defer func() {
		if recover() != nil { // a second parser's fault must not take crank down: yaml.v3's message stands
			found = nil
		}
	}()
	_, err := goccy.ParseBytes(data, 0)
	var se *goccyyaml.SyntaxError
	if err == nil || !errors.As(err, &se) || se.Token == nil || se.Token.Position == nil {
		return nil
	}
	line, col := se.Token.Position.Line, se.Token.Position.Column
	msg := fmt.Sprintf("%s:%d:%d: %s", name, line, col, se.Message)
	if lines := strings.Split(string(data), "\n"); line >= 1 && line <= len(lines) {
		msg += "\n    " + strings.TrimRight(lines[line-1], "\r")
	}
	return errors.New(msg)
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// yamlError rewrites yaml.v3's "yaml: line 3: msg" as "file:3: msg", one line per problem.
func yamlError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if m := yamlLine.FindStringSubmatch(l); m != nil {
			out = append(out, fmt.Sprintf("%s:%s: %s", name, m[1], m[2]))
		} else if l != "" {
			out = append(out, fmt.Sprintf("%s: %s", name, l))
		}
	}
	return errors.New(strings.Join(out, "\n"))
}

func convert(y *yaml.Node, name string, depth int) (*node, error) {
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("%s:%d: nesting deeper than %d levels", name, y.Line, maxYAMLDepth)
	}
	pos := Pos{File: name, Line: y.Line}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return newMap(pos), nil
		}
		return convert(y.Content[0], name, depth+1)
	case yaml.AliasNode:
		return convert(y.Alias, name, depth+1)
	case yaml.SequenceNode:
		n := &node{kind: kindList, pos: pos, items: make([]*node, 0, len(y.Content))}
		for _, c := range y.Content {
			it, err := convert(c, name, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, it)
		}
		return n, nil
	case yaml.MappingNode:
		return convertMap(y, name, depth)
	default:
		v, err := scalarValue(y)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, y.Line, err)
		}
		return scalar(v, pos), nil
	}
}

// convertMap keeps document order and applies YAML merge keys (<<: *defaults): explicit keys win.
func convertMap(y *yaml.Node, name string, depth int) (*node, error) {
	n := newMap(Pos{File: name, Line: y.Line})
	var merges []*node
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		val, err := convert(v, name, depth+1)
		if err != nil {
			return nil, err
		}
		if k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0) {
			merges = append(merges, mergeSources(val)...)
			continue
		}
		if prev := n.pair(k.Value); prev != nil {
			return nil, fmt.Errorf("%s:%d: key %q is already defined at line %d", name, k.Line, k.Value, prev.keyPos.Line)
		}
		n.pairs = append(n.pairs, pair{key: k.Value, keyPos: Pos{File: name, Line: k.Line}, value: val})
	}
	for _, m := range merges {
		if !m.isMap() {
			return nil, fmt.Errorf("%s:%d: a merge key (<<) needs a mapping", name, y.Line)
		}
		for _, p := range m.pairs {
			if n.pair(p.key) == nil {
				n.pairs = append(n.pairs, p)
			}
		}
	}
	return n, nil
}

func mergeSources(v *node) []*node {
	if v.isList() {
		return v.items
	}
	return []*node{v}
}

// scalarValue reads a scalar as YAML would: ints, floats, bools and null typed, the rest strings.
func scalarValue(y *yaml.Node) (any, error) {
	switch y.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := y.Decode(&v); err != nil {
			return nil, err
		}
		return v, nil
	default:
		return y.Value, nil
	}
}

// parseScalarText reads a command-line value the way a plain YAML scalar would be read: "64" is an
// int, "true" a bool, "1.5" a float, `'64'` the string 64. Anything that is not a single scalar
// (a mapping such as "Accept: text/plain", a list, null, or invalid YAML) stays the raw string.
func parseScalarText(s string) any {
	if strings.TrimSpace(s) == "" {
		return s
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil || len(doc.Content) != 1 {
		return s
	}
	y := doc.Content[0]
	if y.Kind != yaml.ScalarNode {
		return s
	}
	v, err := scalarValue(y)
	if err != nil || v == nil {
		return s
	}
	return v
}

// parseListText reads a command-line value for a list key: a YAML flow list ("[a, b]") gives its
// items, anything else a one-item list.
func parseListText(s string, pos Pos) *node {
	var doc yaml.Node
	if strings.HasPrefix(strings.TrimSpace(s), "[") && yaml.Unmarshal([]byte(s), &doc) == nil &&
		len(doc.Content) == 1 && doc.Content[0].Kind == yaml.SequenceNode {
		n := &node{kind: kindList, pos: pos}
		for _, c := range doc.Content[0].Content {
			if c.Kind != yaml.ScalarNode {
				return &node{kind: kindList, pos: pos, items: []*node{scalar(s, pos)}}
			}
			v, _ := scalarValue(c)
			n.items = append(n.items, scalar(v, pos))
		}
		return n
	}
	return &node{kind: kindList, pos: pos, items: []*node{scalar(parseScalarText(s), pos)}}
}
