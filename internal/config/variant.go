package config

import "strings"

// Variant returns the variables that req sets (--variable, --<service>.variables.<name>) whose
// resolved values differ from what the scenario gives them without those settings: what makes
// res a variant of the scenario ("partitions" -> "4"). Variables naming ports (ending in "port",
// any case) are left out: they move the app, not what is measured. When the defaults cannot be
// resolved, every variable req sets counts.
func (c *Config) Variant(req Request, res *Resolved) map[string]string {
	names := map[string]bool{}
	for n := range req.Variables {
		names[n] = true
	}
	def := req
	def.Variables, def.Overrides = nil, nil
	for _, o := range req.Overrides {
		if n, ok := strings.CutPrefix(o.Path, "variables."); ok {
			names[n] = true
			continue
		}
		def.Overrides = append(def.Overrides, o)
	}
	if len(names) == 0 {
		return nil
	}
	base, err := c.Resolve(def)
	defaults := map[string]map[string]any{}
	if err == nil {
		for _, s := range base.Services {
			defaults[s.Name] = s.Job.Variables
		}
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
			if err == nil && (had && scalarText(d) == scalarText(v) || !had && anyHas(defaults, n)) {
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

func anyHas(defaults map[string]map[string]any, name string) bool {
	for _, vars := range defaults {
		if _, ok := vars[name]; ok {
			return true
		}
	}
	return false
}
