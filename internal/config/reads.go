package config

import (
	"regexp"
	"strings"

	liquidrender "github.com/osteele/liquid/render"
)

// codeReads are the variables crank reads itself, besides the templates: the load's duration and
// warmup (its default timeout, the progress line, the warm-up's lead), its rate and connections
// (split across endpoints, the capacity search, the probe), and the address a .NET app listens on
// (ASPNETCORE_URLS from serverScheme, serverAddress and serverPort).
var codeReads = []string{"duration", "warmup", "rate", "connections", "serverPort", "serverScheme", "serverAddress"}

// reads is what one service reads of its variables.
type reads struct {
	// names are read by a template of the job, by crank itself (codeReads) or mentioned by an
	// onConfigure script.
	names map[string]bool
	// known are the names worth suggesting for a misspelt one: the variables the templates read
	// (not a loop's, an assign's or a capture's own) and codeReads.
	known map[string]bool
}

func newReads() reads {
	r := reads{names: map[string]bool{}, known: map[string]bool{}}
	for _, n := range codeReads {
		r.names[n], r.known[n] = true, true
	}
	return r
}

// serviceReads is what a job's templates read: its keys' templates, and its variables' (the
// file's, the job's and the command line's, before rendering: a variable made of others reads
// them), and codeReads.
func serviceReads(e *engine, job, vars *node) reads {
	r := newReads()
	var srcs []string
	collectStrings(job.without(keyVariables), &srcs)
	collectStrings(vars, &srcs)
	for _, s := range srcs {
		r.template(e, s)
	}
	return r
}

// template adds the variables src's Liquid markup reads, found on osteele/liquid's parse tree:
// comments and raw blocks read nothing; objects, tags and their clauses read the names of their
// expressions (exprReads). A template the library cannot parse (rendering it will say why) reads
// every name its markup mentions (references).
func (r reads) template(e *engine, src string) {
	if !hasMarkup(src) {
		return
	}
	root := parseTree(e, src)
	if root == nil {
		for _, name := range references(src) {
			r.names[name] = true
		}
		return
	}
	got, locals := map[string]bool{}, map[string]bool{}
	walkReads(root, func(name string) { got[name] = true }, locals)
	for name := range got {
		r.names[name] = true
		if !locals[name] && name != "job" {
			r.known[name] = true
		}
	}
}

// parseTree is src's parse tree, or nil when osteele/liquid cannot parse it: an error, or a panic
// with one (its scanner panics on an integer too large: {{ 99999999999999999999 }}).
func parseTree(e *engine, src string) (root liquidrender.Node) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(error); !ok {
				panic(r)
			}
			root = nil
		}
	}()
	tpl, err := e.ParseTemplate([]byte(prepareTemplate(src)))
	if err != nil {
		return nil
	}
	return tpl.GetRoot()
}

// script adds every name a script mentions: an onConfigure script reads job.variables.x, a
// results script benchmarks.jobs.load.variables.x, or any variable by a computed name, so any word
// of the script counts.
func (r reads) script(src string) {
	for _, w := range scriptWordRe.FindAllString(src, -1) {
		r.names[w] = true
	}
}

var scriptWordRe = regexp.MustCompile(`[A-Za-z_$][\w$]*`)

// loopObjects are the objects Liquid gives a loop's body.
var loopObjects = []string{"forloop", "tablerowloop"}

// walkReads calls add with the names the nodes under n read; locals gets the names templates set
// themselves (a loop's variable, an assign's or a capture's target).
func walkReads(n liquidrender.Node, add func(string), locals map[string]bool) {
	switch n := n.(type) {
	case *liquidrender.SeqNode:
		for _, c := range n.Children {
			walkReads(c, add, locals)
		}
	case *liquidrender.ObjectNode:
		exprReads(n.Args, add, nil)
	case *liquidrender.TagNode:
		tagReads(n.Name, n.Args, add, locals)
	case *liquidrender.BlockNode:
		tagReads(n.Name, n.Args, add, locals)
		for _, c := range n.Body {
			walkReads(c, add, locals)
		}
		for _, c := range n.Clauses {
			walkReads(c, add, locals)
		}
	}
}

// tagReads reads a tag's arguments: assign, for and tablerow set their first name and read the
// rest; capture, increment and decrement name what they set.
func tagReads(name, args string, add func(string), locals map[string]bool) {
	switch name {
	case "assign", "for", "tablerow":
		first := true
		exprReads(args, add, func(n string) bool {
			if first {
				first, locals[n] = false, true
				return false
			}
			return true
		})
		if name != "assign" {
			for _, o := range loopObjects {
				locals[o] = true
			}
		}
	case "capture", tagCapture, "increment", "decrement":
		locals[strings.TrimSpace(args)] = true
	default:
		exprReads(args, add, nil)
	}
}

// exprReads calls add with the variables a Liquid expression reads, its tokens told apart as
// osteele/liquid's expression scanner does (expressions/scanner.rl): quoted strings and numbers
// are literals; `name:` is a keyword (a filter with arguments, a loop's limit:); true, false, nil,
// and, or, contains and in are keywords; `.name` is a property, not a variable; a name after `|`
// is a filter. A path from `job` (the job itself, as its templates see it) reads the names along
// it: {{ job.variables.x }} reads x. keep, when not nil, says whether a name is read.
func exprReads(src string, add func(string), keep func(string) bool) {
	afterPipe, fromJob := false, false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(src[i+1:], c)
			if end < 0 {
				return
			}
			i += end + 2
			afterPipe, fromJob = false, false
		case strings.HasPrefix(src[i:], ".."): // a range: (1..n)
			i += 2
			afterPipe, fromJob = false, false
		case c == '.' && i+1 < len(src) && isIdentStart(src[i+1]):
			end := identEnd(src, i+1)
			if fromJob {
				add(src[i+1 : end])
			}
			i = end
		case isIdentStart(c):
			end := identEnd(src, i)
			word := src[i:end]
			keyword := end < len(src) && src[end] == ':' || isExprKeyword(word)
			fromJob = false
			if !keyword && !afterPipe && (keep == nil || keep(word)) {
				add(word)
				fromJob = word == "job"
			}
			afterPipe, i = false, end
		case isDigit(c):
			for i < len(src) && (isDigit(src[i]) || src[i] == '.' && i+1 < len(src) && isDigit(src[i+1])) {
				i++
			}
			afterPipe, fromJob = false, false
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				afterPipe, fromJob = c == '|', false
			}
			i++
		}
	}
}

func isExprKeyword(w string) bool {
	switch w {
	case "true", "false", "nil", "and", "or", "contains", "in":
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// identEnd is where the name starting at i ends: letters, digits, _ and -, and a final ?.
func identEnd(s string, i int) int {
	for i < len(s) && (isIdentStart(s[i]) || isDigit(s[i]) || s[i] == '-') {
		i++
	}
	if i < len(s) && s[i] == '?' {
		i++
	}
	return i
}
