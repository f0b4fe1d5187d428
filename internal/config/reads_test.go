package config

import (
	"slices"
	"testing"
)

// TestTemplateReads: the names a template reads, told from literals, properties, filters,
// keywords, a loop's and an assign's own names, comments and raw text.
func TestTemplateReads(t *testing.T) {
	cases := []struct {
		src         string
		names, know []string
	}{
		{"-c {{connections}} -d {{ duration }}s", []string{"connections", "duration"}, nil},
		{"{{ headers[presetHeaders] }}", []string{"headers", "presetHeaders"}, nil},
		{"{{ a.b.c | append: suffix | upcase }} {{ 'quoted' }} {{ 12.5 }}", []string{"a", "suffix"}, nil},
		{"{% if serverUri == blank and x != empty or y contains 'z' %}{{u}}{% elsif v > 1 %}{% else %}{{w}}{% endif %}",
			[]string{"serverUri", "u", "v", "w", "x", "y"}, nil},
		{`{% for h in customHeaders limit: max %}{% assign s = h | split : ':' %}{{ s[0] }}{{ forloop.index }}{% endfor %}`,
			[]string{"customHeaders", "forloop", "h", "max", "s"}, []string{"customHeaders", "max"}},
		{"{% for i in (1..n) %}{{ i }}{% endfor %}", []string{"i", "n"}, []string{"n"}},
		{"{% capture c %}{{ v }}{% endcapture %}{{ c }}", []string{"c", "v"}, []string{"v"}},
		{"{% case mode %}{% when 'x', other %}{{k}}{% endcase %}", []string{"k", "mode", "other"}, nil},
		{"{% comment %}{{ hidden }}{% endcomment %}{% raw %}{{ raw }}{% endraw %}", nil, nil},
		{"{{ job.variables.port }}", []string{"job", "port", "variables"}, []string{"port", "variables"}},
		{"{{ my-var? | default: fallback }}", []string{"fallback", "my-var?"}, nil},
		{"{% if a %}{{ b }}", []string{"a", "b", "if"}, []string{}},                 // unclosed: every name mentioned
		{"{{ n | plus: 99999999999999999999 }}", []string{"n", "plus"}, []string{}}, // the scanner panics
	}
	for _, c := range cases {
		r := reads{names: map[string]bool{}, known: map[string]bool{}}
		r.template(newEngine(), c.src)
		names, known := sortedSet(r.names), sortedSet(r.known)
		want := c.know
		if want == nil {
			want = c.names
		}
		if !slices.Equal(names, c.names) || !slices.Equal(known, want) {
			t.Errorf("%s: reads %q, known %q; want %q, %q", c.src, names, known, c.names, want)
		}
	}
}

func sortedSet(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil
	}
	return out
}
