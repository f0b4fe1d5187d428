package cli

import "maps"

// variant is a run's variant: the variables that differ from the scenario's defaults, and its
// --property values (a property wins over a variable of the same name).
func variant(properties, variables map[string]string) map[string]string {
	if len(properties)+len(variables) == 0 {
		return nil
	}
	out := maps.Clone(variables)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, properties)
	return out
}
