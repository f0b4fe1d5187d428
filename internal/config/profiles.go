package config

import (
	"fmt"
	"slices"
	"strings"
)

// patch lays a profile's values over a job as crank does: mappings merge key by key (keys matched
// ignoring case), lists are appended to, scalars replaced. src is copied, never shared.
func patch(dst, src *node) *node {
	if src.isNull() {
		return dst
	}
	if dst == nil || dst.isNull() {
		return src.clone()
	}
	switch {
	case dst.isMap() && src.isMap():
		return mergePairs(dst, src, (*node).pairFold, patch)
	case dst.isList() && src.isList():
		out := dst.clone()
		for _, it := range src.items {
			out.items = append(out.items, it.clone())
		}
		return out
	case dst.isMap() || dst.isList():
		return dst // crank leaves a mapping or list that a scalar would replace
	default:
		return src.clone()
	}
}

// checkPlacement is crank's rule for a run with profiles: every service must be named by one of
// the profiles' agents/jobs entries (by name, alias, or the service's agent:), unless the
// service says where it runs itself (its own endpoints key, empty for the embedded agent).
// Profiles with no agents or jobs section (variables only) place nothing and are not asked.
func checkPlacement(svc pair, agentName string, profiles []pair, overrides []Override) error {
	if svc.value.pairFold("endpoints") != nil {
		return nil
	}
	for _, o := range overrides {
		if strings.EqualFold(o.Path, "endpoints") {
			return nil
		}
	}
	var placing []string
	for _, p := range profiles {
		for _, group := range []string{"agents", "jobs"} {
			g := p.value.get(group)
			if !g.isMap() {
				continue
			}
			if !slices.Contains(placing, p.key) {
				placing = append(placing, p.key)
			}
			for _, e := range g.pairs {
				if profileMatches(e, agentName) {
					return nil
				}
			}
		}
	}
	if len(placing) == 0 {
		return nil
	}
	return fmt.Errorf("%s: service %q: no agent named %q in profile %s (an agents: entry or one of its aliases); add one, set the service's agent: to one, or give the service endpoints: [] to run it on the agent crank embeds",
		svc.keyPos, svc.key, agentName, strings.Join(placing, ", "))
}
