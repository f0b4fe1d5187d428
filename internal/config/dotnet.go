package config

import (
	"fmt"

	"github.com/crankshaft/crankshaft/internal/api"
)

// crank's .NET jobs (source.project naming a .NET project rather than one of crank's load
// wrappers) resolve as crank renders them: the job keeps its source, and api.Job.Dotnet says what
// to publish and with which versions. Whether an agent can build it is that agent's answer (its
// /info), asked by the controller before anything starts.

// dotnetCarried are crank's .NET keys the agent's build carries out (the others are said to have
// no effect).
var dotnetCarried = []string{"framework", "sdkVersion", "runtimeVersion", "aspNetCoreVersion", "channel", "selfContained"}

// dotnetProject makes j a .NET build of project.
func (d *decoder) dotnetProject(j *api.Job, project string) {
	j.Dotnet = &api.Dotnet{Project: project}
}

// applyDotnetKeys reads crank's .NET keys gathered while decoding: into j.Dotnet for a .NET job;
// otherwise (and for the keys not carried out) a note that they have no effect.
func (d *decoder) applyDotnetKeys(j *api.Job) {
	if p := d.benchmarkDotNet; p.value != nil && asksForSomething(p.value) {
		if j.Dotnet == nil {
			d.fail(p.keyPos, "options.benchmarkDotNet", "a BenchmarkDotNet suite is a .NET project: give it as source.project")
		} else {
			j.Dotnet.BenchmarkDotNet = d.boolean(p, "options.benchmarkDotNet")
		}
	}
	for _, p := range d.dotnetKeys {
		key := canonical(p.key, dotnetKeys)
		if j.Dotnet == nil || canonical(key, dotnetCarried) == "" {
			if asksForSomething(p.value) {
				why := hintDotnetKey
				if j.Dotnet != nil {
					why = "this platform's .NET build does not carry it out"
				}
				d.notes = append(d.notes, fmt.Sprintf("%s: %s: crank's %s has no effect here: %s", p.keyPos, d.where, p.key, why))
			}
			continue
		}
		switch key {
		case "framework":
			j.Dotnet.Framework = d.text(p, key)
		case "sdkVersion":
			j.Dotnet.SdkVersion = d.text(p, key)
		case "runtimeVersion":
			j.Dotnet.RuntimeVersion = d.text(p, key)
		case "aspNetCoreVersion":
			j.Dotnet.AspNetCoreVersion = d.text(p, key)
		case "channel":
			j.Dotnet.Channel = d.text(p, key)
		case "selfContained":
			j.Dotnet.SelfContained = d.boolean(p, key)
		}
	}
}
