package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

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

// newEngine returns a Liquid engine with crank's `blank` and `empty` comparisons added.
func newEngine() *liquid.Engine {
	e := liquid.NewEngine()
	e.RegisterFilter(filterBlank, isBlank)
	e.RegisterFilter(filterNotBlank, func(v any) bool { return !isBlank(v) })
	e.RegisterFilter(filterEmpty, isEmpty)
	e.RegisterFilter(filterNotEmpty, func(v any) bool { return !isEmpty(v) })
	// The string filters that can double a value in a loop are bounded like the output: a few
	// hundred bytes of configuration must not exhaust crank's memory.
	e.RegisterFilter("append", func(s, more any) (string, error) { return bounded(str(s) + str(more)) })
	e.RegisterFilter("prepend", func(s, more any) (string, error) { return bounded(str(more) + str(s)) })
	e.RegisterFilter("replace", func(s, old, repl any) (string, error) {
		return bounded(strings.ReplaceAll(str(s), str(old), str(repl)))
	})
	// So are capture (its content renders into a string of its own, not the bounded output: the
	// pre-pass renames it, as the engine keeps its own definition) and
	// concat (a list doubled in a loop): a second audit of issue 25 doubled both 40 times.
	e.RegisterBlock(tagCapture, func(ctx liquidrender.Context) (string, error) {
		s, err := ctx.InnerString()
		if err != nil {
			return "", err
		}
		if _, err := bounded(s); err != nil {
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
	return e
}

// tagCapture is the bounded capture block; the pre-pass renames `capture` to it.
const tagCapture = "crank_capture"

var captureRe = regexp.MustCompile(`^(\{%-?\s*)(end)?capture\b`)

// MaxRender bounds what one template may render, and any string a filter makes while rendering.
const MaxRender = 1 << 20

var errTooLarge = fmt.Errorf("renders more than %d KiB (a loop that doubles a string or nests too deep?): refused", MaxRender>>10)

var errInclude = errors.New("{% include %} is not available: crank's templates do not read files (use imports: or a variable)")

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
func render(e *liquid.Engine, src string, vars map[string]any) (out string, err error) {
	if !hasMarkup(src) {
		return src, nil
	}
	defer func() { // osteele/liquid panics with the writer's error: the bound's refusal
		if r := recover(); r != nil {
			if re, ok := r.(error); ok && errors.Is(re, errTooLarge) {
				out, err = "", errTooLarge
				return
			}
			panic(r)
		}
	}()
	var w limitWriter
	if err := e.ParseAndFRender(&w, []byte(prepareTemplate(src)), vars); err != nil {
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
