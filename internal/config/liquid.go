package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/osteele/liquid"
	liquidrender "github.com/osteele/liquid/render"
)

// Filters this package adds to osteele/liquid so crank's templates render as crank's Fluid
// renders them. The pre-pass in prepareTemplate rewrites `x == blank` into `x | crank_blank`.
const (
	filterBlank    = "crank_blank"
	filterNotBlank = "crank_not_blank"
	filterEmpty    = "crank_empty"
	filterNotEmpty = "crank_not_empty"
)

// engine is a Liquid engine and the steps its templates may still take (one resolution's).
type engine struct {
	*liquid.Engine
	steps *loopSteps
}

// newEngine returns a Liquid engine with crank's `blank` and `empty` comparisons added.
func newEngine() *engine {
	e := liquid.NewEngine()
	// Loops are bounded by the steps every template of the engine (one resolution) may take: a
	// 40-byte `{% for i in (1..100000000) %}{% endfor %}` ran two minutes, and nested loops or a
	// larger range would have run for ever. The pre-pass pipes every for and tablerow collection
	// through crank_loop, whose items charge the budget as the loop reads them.
	steps := &loopSteps{}
	steps.left.Store(MaxLoopSteps)
	e.RegisterFilter(filterLoop, steps.wrap)
	e.RegisterFilter(filterBlank, isBlank)
	e.RegisterFilter(filterNotBlank, func(v any) bool { return !isBlank(v) })
	e.RegisterFilter(filterEmpty, isEmpty)
	e.RegisterFilter(filterNotEmpty, func(v any) bool { return !isEmpty(v) })
	// The string filters that can double a value in a loop are bounded like the output: a few
	// hundred bytes of configuration must not exhaust crank's memory.
	e.RegisterFilter("append", func(s, more any) (string, error) { return steps.bounded(str(s) + str(more)) })
	e.RegisterFilter("prepend", func(s, more any) (string, error) { return steps.bounded(str(more) + str(s)) })
	e.RegisterFilter("replace", func(s, old, repl any) (string, error) {
		// Sized before it is made: replace(s, '', s) of a 1 MiB s would be a TiB.
		in, o, r := str(s), str(old), str(repl)
		if n := strings.Count(in, o); len(in)+n*(len(r)-len(o)) > MaxRender || n > 0 && len(r) > MaxRender {
			return "", errTooLarge
		}
		return steps.bounded(strings.ReplaceAll(in, o, r))
	})
	// So are the filters that make a longer string than they are given: join (a list of a
	// million items joined with a 1 MiB separator would be a TiB, sized before it is made), json
	// and inspect (written into a bounded buffer), and the escapes (up to 6 times their input,
	// and chained: escape | escape | ... multiplied 1 MiB by 5 a time).
	e.RegisterFilter("join", func(a []any, sep func(string) string) (string, error) {
		sp := sep(" ")
		var b strings.Builder
		for i, v := range a {
			if v == nil {
				continue
			}
			item := fmt.Sprint(v)
			if b.Len()+len(item)+len(sp) > MaxRender {
				return "", errTooLarge
			}
			if i > 0 {
				b.WriteString(sp)
			}
			b.WriteString(item)
		}
		return steps.bounded(b.String())
	})
	jsonOf := func(v any) (string, error) {
		var w limitWriter
		if err := json.NewEncoder(&w).Encode(v); err != nil {
			if errors.Is(err, errTooLarge) {
				return "", errTooLarge
			}
			return "", err
		}
		return strings.TrimSuffix(w.b.String(), "\n"), nil
	}
	e.RegisterFilter("json", jsonOf)
	e.RegisterFilter("inspect", func(v any) (string, error) {
		if s, err := jsonOf(v); err == nil || errors.Is(err, errTooLarge) {
			return s, err
		}
		return bounded(fmt.Sprintf("%#v", v))
	})
	grows := func(f func(string) string) func(string) (string, error) {
		return func(s string) (string, error) {
			if len(s) > MaxRender {
				return "", errTooLarge
			}
			return steps.bounded(f(s))
		}
	}
	e.RegisterFilter("escape", grows(html.EscapeString))
	e.RegisterFilter("escape_once", grows(func(s string) string { return html.EscapeString(html.UnescapeString(s)) }))
	e.RegisterFilter("newline_to_br", grows(func(s string) string { return strings.ReplaceAll(s, "\n", "<br />") }))
	e.RegisterFilter("url_encode", grows(url.QueryEscape))
	// So are capture (its content renders into a string of its own, not the bounded output: the
	// pre-pass renames it, as the engine keeps its own definition) and
	// concat (a list doubled in a loop): a second audit of issue 25 doubled both 40 times.
	e.RegisterBlock(tagCapture, func(ctx liquidrender.Context) (string, error) {
		s, err := ctx.InnerString()
		if err != nil {
			return "", err
		}
		if _, err := steps.bounded(s); err != nil {
			return "", err
		}
		ctx.Set(strings.TrimSpace(ctx.TagArgs()), s)
		return "", nil
	})
	// osteele/liquid's include reads any file crank's user can read (joined to the working
	// folder: '../../etc/passwd' reaches anything) and renders it into the value: a fetched
	// configuration put crank's token file into a job it sent, and /dev/zero grew crank's memory
	// without bound. crank's configurations never include files; the tag is refused.
	e.RegisterTag("include", func(liquidrender.Context) (string, error) {
		return "", errInclude
	})
	e.RegisterFilter("concat", func(a, b []any) ([]any, error) {
		if len(a)+len(b) > MaxRender {
			return nil, errTooLarge
		}
		return append(append(make([]any, 0, len(a)+len(b)), a...), b...), nil
	})
	return &engine{e, steps}
}

// tagCapture is the bounded capture block; the pre-pass renames `capture` to it.
const tagCapture = "crank_capture"

var captureRe = regexp.MustCompile(`^(\{%-?\s*)(end)?capture\b`)

// loopRe finds a for or tablerow tag's collection: what follows `in` up to its modifiers
// (reversed, limit:, offset:, cols:) or the tag's end.
var loopRe = regexp.MustCompile(`(?s)^(\{%-?\s*(?:for|tablerow)\s+[A-Za-z_][\w-]*\s+in\s+)(.*?)((?:\s+(?:reversed|limit\s*:|offset\s*:|cols\s*:).*?)?\s*-?%\})$`)

// MaxRender bounds what one template may render, and any string a filter makes while rendering.
const MaxRender = 1 << 20

var errTooLarge = fmt.Errorf("renders more than %d KiB (a loop that doubles a string or nests too deep?): refused", MaxRender>>10)

var errInclude = errors.New("{% include %} is not available: crank's templates do not read files (use imports: or a variable)")

// filterLoop is the filter the pre-pass puts after every loop's collection.
const filterLoop = "crank_loop"

// MaxLoopSteps bounds the work of one resolution's templates: one step a loop iteration, and one
// per KiB a string filter (append, prepend, replace, capture) makes. Configurations loop over
// hosts, arguments and variants: a few thousand steps.
//
// Parsing a template takes a step each 8 bytes, rendering one a KiB written.
const MaxLoopSteps = 1_000_000

var errLoopSteps = fmt.Errorf("templates take more than %d steps in this configuration (one a loop iteration, 8 bytes of template parsed, a KiB rendered or made by a string filter): refused", MaxLoopSteps)

// loopSteps is what is left of an engine's MaxLoopSteps.
type loopSteps struct{ left atomic.Int64 }

// take takes n steps, errLoopSteps past the bound.
func (l *loopSteps) take(n int64) error {
	if l.left.Add(-n) < 0 {
		return errLoopSteps
	}
	return nil
}

// bounded is the package's bounded, and takes a step for each KiB of the string.
func (l *loopSteps) bounded(s string) (string, error) {
	if _, err := bounded(s); err != nil {
		return "", err
	}
	if err := l.take(int64(len(s) >> 10)); err != nil {
		return "", err
	}
	return s, nil
}

// wrap is crank_loop: a collection a loop iterates, charging a step for each item read.
func (l *loopSteps) wrap(v any) any {
	if it, ok := v.(interface {
		Len() int
		Index(int) any
	}); ok { // a range (1..n)
		return countedItems{l, it.Len, it.Index}
	}
	if v == nil {
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		return countedItems{l, rv.Len, func(i int) any { return rv.Index(i).Interface() }}
	}
	return v // a map is as long as its data; anything else is not iterated
}

// countedItems is a collection whose items charge a step each as the loop reads them.
type countedItems struct {
	steps *loopSteps
	n     func() int
	at    func(int) any
}

func (c countedItems) Len() int { return c.n() }

// Index panics with errLoopSteps past the bound, which render recovers: a loop's item cannot
// return an error.
func (c countedItems) Index(i int) any {
	if err := c.steps.take(1); err != nil {
		panic(err)
	}
	return c.at(i)
}

func bounded(s string) (string, error) {
	if len(s) > MaxRender {
		return "", errTooLarge
	}
	return s, nil
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// limitWriter fails once more than MaxRender bytes were written to it.
type limitWriter struct {
	b strings.Builder
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > MaxRender {
		return 0, errTooLarge
	}
	return w.b.Write(p)
}

// isBlank is Liquid's `blank`: nil, false, a string of only white space, an empty list or map.
func isBlank(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return strings.TrimSpace(x) == ""
	}
	return isEmpty(v)
}

// isEmpty is Liquid's `empty`: an empty string, list or map (nil is not empty, as in Shopify's
// Liquid; crank's templates test `== blank or == empty`, which covers nil either way).
func isEmpty(v any) bool {
	if v == nil {
		return false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		return rv.Len() == 0
	}
	return false
}

// hasMarkup reports whether s needs rendering at all.
func hasMarkup(s string) bool { return strings.Contains(s, "{{") || strings.Contains(s, "{%") }

var (
	// markupRe finds Liquid tags and outputs: {% ... %} and {{ ... }}.
	markupRe = regexp.MustCompile(`(?s)\{%.*?%\}|\{\{.*?\}\}`)
	// filterColonRe finds "| split : ','" (Fluid accepts a space before the colon; osteele does not).
	filterColonRe = regexp.MustCompile(`\|\s*([A-Za-z_][\w-]*)\s+:`)
	// operand is what may stand on either side of a comparison with blank or empty.
	operand = `(?:'[^']*'|"[^"]*"|[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[[^\[\]]*\])*)`
	// blankRightRe finds `x == blank`, `x != empty`; blankLeftRe finds `blank == x`.
	blankRightRe = regexp.MustCompile(`(` + operand + `)\s*(==|!=|<>)\s*(blank|empty)\b`)
	blankLeftRe  = regexp.MustCompile(`\b(blank|empty)\s*(==|!=|<>)\s*(` + operand + `)`)
)

// prepareTemplate rewrites the parts of crank's Liquid dialect (Fluid) that osteele/liquid does
// not parse: comparisons with `blank`/`empty` become filter calls, and "filter : arg" loses the
// space before its colon. Text outside {% %} and {{ }} is left alone.
func prepareTemplate(src string) string {
	return markupRe.ReplaceAllStringFunc(src, func(m string) string {
		m = captureRe.ReplaceAllString(m, "${1}${2}"+tagCapture)
		m = loopRe.ReplaceAllString(m, "${1}${2} | "+filterLoop+"${3}")
		m = filterColonRe.ReplaceAllString(m, "| $1:")
		m = blankRightRe.ReplaceAllStringFunc(m, func(s string) string {
			g := blankRightRe.FindStringSubmatch(s)
			return g[1] + " | " + blankFilter(g[3], g[2])
		})
		return blankLeftRe.ReplaceAllStringFunc(m, func(s string) string {
			g := blankLeftRe.FindStringSubmatch(s)
			return g[3] + " | " + blankFilter(g[1], g[2])
		})
	})
}

func blankFilter(word, op string) string {
	negate := op != "=="
	switch {
	case word == "blank" && negate:
		return filterNotBlank
	case word == "blank":
		return filterBlank
	case negate:
		return filterNotEmpty
	default:
		return filterEmpty
	}
}

// render renders one template string against vars.
func render(e *engine, src string, vars map[string]any) (out string, err error) {
	if !hasMarkup(src) {
		return src, nil
	}
	// Parsing costs about a microsecond a byte of markup: a step each 8 bytes, so that values
	// that grow pass after pass (variables of variables) cannot take crank's time for ever.
	if err := e.steps.take(int64(len(src)/8 + 1)); err != nil {
		return "", err
	}
	// osteele/liquid panics with the writer's error (the bound's refusal), and on some input of its
	// own (an integer past int64 in an expression): either is this template's error, not a crash.
	defer func() {
		if r := recover(); r != nil {
			out = ""
			if re, ok := r.(error); ok && (errors.Is(re, errTooLarge) || errors.Is(re, errLoopSteps)) {
				err = re
				return
			}
			err = fmt.Errorf("the template engine (osteele/liquid) failed on this template: %v", r)
		}
	}()
	var w limitWriter
	if err := e.ParseAndFRender(&w, []byte(prepareTemplate(src)), vars); err != nil {
		return "", err
	}
	if err := e.steps.take(int64(w.b.Len() >> 10)); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

var (
	quotedRe = regexp.MustCompile(`'[^']*'|"[^"]*"`)
	identRe  = regexp.MustCompile(`[A-Za-z_][\w-]*`)
)

// references lists the identifiers a template's markup mentions (not after a dot, not in quotes):
// an over-approximation of the variables it reads, used to find cycles between variables.
func references(src string) []string {
	var refs []string
	for _, m := range markupRe.FindAllString(src, -1) {
		m = quotedRe.ReplaceAllString(m, "''")
		for _, loc := range identRe.FindAllStringIndex(m, -1) {
			if loc[0] > 0 && m[loc[0]-1] == '.' {
				continue
			}
			refs = append(refs, m[loc[0]:loc[1]])
		}
	}
	return refs
}
