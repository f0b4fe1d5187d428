package config

import (
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
)

func (d *decoder) mapping(p pair) bool {
	if p.value.isNull() {
		return false
	}
	if !p.value.isMap() {
		d.fail(p.keyPos, p.key, "want a mapping, got %s", describe(p.value))
		return false
	}
	return true
}

// source reads source.{localFolder, repository, branchOrCommit, project, docker*}; crank's cache
// hints (sourceKey, noBuild, cacheOnAgent) are accepted: the agent's build cache is keyed by
// content. "branch#commit" checks out the commit (crank's form for a commit on a branch).
func (d *decoder) source(p pair) *api.Source {
	if !d.mapping(p) {
		return nil
	}
	s := d.sourceOf(p.value, "source.")
	if *s == (api.Source{}) {
		return nil
	}
	return s
}

func (d *decoder) sourceOf(n *node, prefix string) *api.Source {
	s := &api.Source{}
	for _, e := range n.pairs {
		key := canonical(e.key, sourceKeys)
		if key == "" {
			d.crankKey(e, prefix, crankSourceRefusals, sourceKeys)
			continue
		}
		full := prefix + key
		switch key {
		case "localFolder":
			s.LocalFolder = d.localFolder(e.value.pos, full, d.text(e, full))
		case "repository":
			s.Repository = d.text(e, full)
		case "branchOrCommit":
			s.BranchOrCommit = d.text(e, full)
			if _, commit, ok := strings.Cut(s.BranchOrCommit, "#"); ok && commit != "" {
				s.BranchOrCommit = commit
			}
		case "project":
			d.setProject(d.text(e, full), e.keyPos, full)
		case "destinationFolder":
			if asksForSomething(e.value) {
				d.fail(e.keyPos, full, "crank's %s is not supported: a job's source fills its whole folder; use source.localFolder or one entry under sources", full)
			}
		case "sourceKey", "noBuild", "cacheOnAgent":
		default: // source.docker*
			e.key = key
			d.dockerSource(s, e, full)
		}
	}
	return s
}

// options reads options.{requiredArchitecture, requiredOperatingSystem, displayOutput,
// displayBuild}; reuseBuild and reuseSource are what the agent's build cache always does.
func (d *decoder) options(p pair) api.Options {
	var o api.Options
	if !d.mapping(p) {
		return o
	}
	for _, e := range p.value.pairs {
		key := canonical(e.key, optionsKeys)
		if key == "" {
			d.crankKey(e, "options.", crankOptionRefusals, optionsKeys)
			continue
		}
		full := "options." + key
		switch key {
		case "requiredArchitecture":
			o.RequiredArchitecture = d.text(e, full)
		case "requiredOperatingSystem":
			o.RequiredOperatingSystem = d.text(e, full)
		case "displayOutput":
			o.DisplayOutput = d.boolean(e, full)
		case "displayBuild":
			o.DisplayBuild = d.boolean(e, full)
		case "reuseBuild", "reuseSource":
			d.boolean(e, full)
		case "buildFiles":
			d.buildFiles(e, full)
		case "benchmarkDotNet":
			d.benchmarkDotNet = e // read once the job is known to be a .NET build (applyDotnetKeys)
		}
	}
	return o
}

// counters reads the list of Prometheus metric -> measurement mappings.
func (d *decoder) counters(p pair) []api.CounterSpec {
	if p.value.isNull() {
		return nil
	}
	if !p.value.isList() {
		d.fail(p.keyPos, p.key, "want a list of {metric, measurement, read}")
		return nil
	}
	var out []api.CounterSpec
	for i, it := range p.value.items {
		prefix := "counters[" + strconv.Itoa(i) + "]."
		if !it.isMap() {
			d.fail(it.pos, strings.TrimSuffix(prefix, "."), "want a mapping {metric, measurement, read}")
			continue
		}
		out = append(out, d.counter(it, prefix))
	}
	return out
}

func (d *decoder) counter(n *node, prefix string) api.CounterSpec {
	var c api.CounterSpec
	for _, e := range n.pairs {
		key := prefix + e.key
		switch e.key {
		case "metric":
			c.Metric = d.text(e, key)
		case "measurement":
			c.Measurement = d.text(e, key)
		case "read":
			c.Read = d.text(e, key)
			if c.Read != "rate" && c.Read != "gauge" && c.Read != "quantile" {
				d.fail(e.keyPos, key, "want rate, gauge or quantile, got %q", c.Read)
			}
		case "quantile":
			c.Quantile = d.float(e, key)
		case "scale":
			c.Scale = d.float(e, key)
		default:
			d.crankKey(e, prefix, nil, []string{"metric", "measurement", "read", "quantile", "scale"})
		}
	}
	return c
}

func (d *decoder) float(p pair, key string) float64 {
	switch x := p.value.value.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f
		}
	}
	d.fail(p.keyPos, key, "want a number, got %s", describe(p.value))
	return 0
}

// setProject records crank's project, given on the job or as source.project; both is an error.
func (d *decoder) setProject(project string, pos Pos, key string) {
	if d.project != "" && project != "" {
		d.fail(pos, key, "the job's project is given twice (project and source.project): give one")
		return
	}
	if project != "" {
		d.project, d.projectPos = project, pos
	}
}
