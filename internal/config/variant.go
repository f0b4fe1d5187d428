package config

import "strings"

// Variant returns the variables that req sets (--variable, --<service>.variables.<name>) whose
// resolved values differ from what the scenario gives them without those settings: what makes
// res a variant of the scenario ("partitions" -> "4"). Variables naming ports (ending in "port",
// any case) are left out: they move the app, not what is measured. The defaults are those res's
// own resolution rendered without the command line's variables (defaultVariables), so the
// scenario is resolved once; where they could not be rendered, every variable req sets counts.
func (c *Config) Variant(req Request, res *Resolved) map[string]string {
	names := map[string]bool{}
	for n := range req.Variables {
		names[n] = true
	}
	for n := range req.JSONVariables {
		names[n] = true
	}
	for _, o := range req.Overrides {
		if n, ok := strings.CutPrefix(o.Path, "variables."); ok {
			names[n] = true
		}
	}
	if len(names) == 0 {
		return nil
	}
	defaults := map[string]map[string]any{}
	known := true
	for _, s := range res.Services {
		defaults[s.Name] = s.defaults
		known = known && !s.noDefaults
	}
	out := map[string]string{}
	for _, s := range res.Services {
		for n := range names {
			if strings.HasSuffix(strings.ToLower(n), "port") {
				continue
			}
			v, ok := s.Job.Variables[n]
			if !ok {
				continue
			}
			d, had := defaults[s.Name][n]
			if known && (had && scalarText(d) == scalarText(v) || !had && anyHas(defaults, n)) {
				continue // the default, or a variable of another service set on all of them
			}
			if _, seen := out[n]; !seen {
				out[n] = scalarText(v)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// defaultVariables renders a service's variables without the command line's, as finish merges
// them (the root's, then the job's, scenario's and profiles' in vars): the defaults Variant tells
// a run's settings against. failed says they cannot be rendered without the command line.
func (c *Config) defaultVariables(e *engine, vars *node, where string) (defaults map[string]any, failed bool) {
	dv := merge(merge(newMap(Pos{}), c.root.get(keyVariables)), vars)
	if err := renderVariables(e, dv, where); err != nil {
		return nil, true
	}
	m, _ := dv.toAny().(map[string]any)
	return m, false
}

func anyHas(defaults map[string]map[string]any, name string) bool {
	for _, vars := range defaults {
		if _, ok := vars[name]; ok {
			return true
		}
	}
	return false
}
