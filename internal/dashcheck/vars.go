package dashcheck

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/influx"
)

// allValue stands for a variable's "All" selection.
const allValue = "$__all"

// resolvedVar is a template variable with the values its query lists.
type resolvedVar struct {
	boardVar
	values []string
}

// resolveVars lists each variable's values, resolving its query with the variables before it
// at their defaults (as Grafana does when the dashboard opens).
func resolveVars(ctx context.Context, url, db string, vars []boardVar, builtin map[string]string) ([]resolvedVar, error) {
	var out []resolvedVar
	for _, v := range vars {
		r := resolvedVar{boardVar: v}
		switch {
		case v.Type == "query":
			subs := substitutions(out, defaultSetting(out), builtin)
			series, err := influx.Query(ctx, url, "", db, substitute(v.query(), subs))
			if err != nil {
				return nil, fmt.Errorf("variable %s: %w", v.Name, err)
			}
			r.values = tagValues(series)
		case len(v.Options) > 0:
			for _, o := range v.Options {
				r.values = append(r.values, o.Value)
			}
		default:
			r.values = v.defaults()
		}
		if len(r.values) == 0 && !v.IncludeAll {
			return nil, fmt.Errorf("variable %s: no value (query %s)", v.Name, v.query())
		}
		out = append(out, r)
	}
	return out, nil
}

func tagValues(series []influx.Series) []string {
	var values []string
	for _, s := range series {
		col := s.Column("value")
		if col == nil && len(s.Columns) > 0 {
			col = s.Column(s.Columns[0]) // SHOW TAG KEYS: tagKey
		}
		for _, v := range col {
			values = append(values, fmt.Sprint(v))
		}
	}
	slices.Sort(values)
	return slices.Compact(values)
}

// setting is one selection of every variable: name -> values (allValue for All).
type setting map[string][]string

func (s setting) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s)) {
		parts = append(parts, k+"="+strings.Join(s[k], "+"))
	}
	return strings.Join(parts, " ")
}

// defaultSetting selects each variable's default: its current value when listed (or All),
// else its first value, as Grafana does.
func defaultSetting(vars []resolvedVar) setting {
	s := setting{}
	for _, v := range vars {
		var pick []string
		for _, d := range v.defaults() {
			if d == allValue && v.IncludeAll || slices.Contains(v.values, d) {
				pick = append(pick, d)
			}
		}
		if len(pick) == 0 && len(v.values) > 0 {
			pick = v.values[:1]
		}
		if len(pick) == 0 {
			pick = []string{allValue}
		}
		s[v.Name] = pick
	}
	return s
}

// settings are the selections a check runs: every variable at its default; then each variable
// in turn at All, at two values together (multi-value) or at each of two values (single-value),
// the others at their defaults.
func settings(vars []resolvedVar) []setting {
	def := defaultSetting(vars)
	out := []setting{def}
	with := func(name string, values ...string) {
		s := maps.Clone(def)
		s[name] = values
		if !slices.ContainsFunc(out, func(o setting) bool { return o.String() == s.String() }) {
			out = append(out, s)
		}
	}
	for _, v := range vars {
		if v.IncludeAll {
			with(v.Name, allValue)
		}
		two := v.values[:min(2, len(v.values))]
		if v.Multi && len(two) == 2 {
			with(v.Name, two...)
			continue
		}
		for _, x := range two {
			with(v.Name, x)
		}
	}
	return out
}

// substitutions renders a setting as Grafana's InfluxDB datasource does: a multi-value or All
// variable's values are regex-escaped, several are joined as (a|b), All is the variable's custom
// all value (".*") when it has one, else every value; a single-value variable is put as is.
func substitutions(vars []resolvedVar, s setting, builtin map[string]string) map[string]string {
	m := maps.Clone(builtin)
	for _, v := range vars {
		values := s[v.Name]
		if slices.Contains(values, allValue) {
			if v.AllValue != "" {
				m[v.Name] = v.AllValue
				continue
			}
			values = v.values
		}
		if !v.Multi && !v.IncludeAll {
			m[v.Name] = strings.Join(values, ",")
			continue
		}
		esc := make([]string, len(values))
		for i, x := range values {
			esc[i] = escapeRegex(x)
		}
		if len(esc) == 1 {
			m[v.Name] = esc[0]
		} else {
			m[v.Name] = "(" + strings.Join(esc, "|") + ")"
		}
	}
	return m
}

var regexSpecial = regexp.MustCompile(`[\\^$*+?.()|\[\]{}/]`)

// escapeRegex escapes a value for an InfluxQL /regex/ as Grafana's escapeRegex does.
func escapeRegex(s string) string { return regexSpecial.ReplaceAllString(s, `\$0`) }

// substitute replaces $name, ${name} and [[name]], longest names first.
func substitute(q string, vars map[string]string) string {
	names := slices.SortedFunc(maps.Keys(vars), func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, n := range names {
		v := vars[n]
		q = strings.NewReplacer("${"+n+"}", v, "[["+n+"]]", v, "$"+n, v).Replace(q)
	}
	return q
}
