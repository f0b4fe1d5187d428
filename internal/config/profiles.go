package config

import (
	"fmt"
	"log/slog"
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

// scenario is the requested scenario's node, or with Request.Jobs (crank's --job), a scenario
// of those jobs: one service per name, running the job of that name from the files, or an empty
// job the command line's --NAME.key options define.
func (c *Config) scenario(req Request) (*node, error) {
	if len(req.Jobs) > 0 {
		if req.Scenario != "" {
			return nil, fmt.Errorf("--scenario and --job can't be used together: both say which jobs run")
		}
		pos := Pos{File: commandLine}
		scen := newMap(pos)
		for _, name := range req.Jobs {
			svc := newMap(pos)
			svc.set("job", pos, scalar(name, pos))
			scen.set(name, pos, svc)
		}
		return scen, nil
	}
	if req.Scenario == "" {
		return nil, fmt.Errorf("no scenario given (--scenario); scenarios: %s", oneOf(c.Scenarios()))
	}
	scen := c.section(keyScenarios).get(req.Scenario)
	if scen == nil {
		return nil, fmt.Errorf("unknown scenario %q; scenarios: %s", req.Scenario, oneOf(c.Scenarios()))
	}
	return scen, nil
}

// Blank is a configuration with nothing in it, for a run of --job alone.
func Blank() *Config {
	return &Config{root: newMap(Pos{}), dirs: map[string]string{}, log: slog.Default()}
}
