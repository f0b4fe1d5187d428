package config

import (
	"math"

	"github.com/crankshaft/crankshaft/internal/api"
)

// containerKey decodes a job's Docker and resource-limit keys (crank's names); it reports whether
// the key was one of them.
func (d *decoder) containerKey(j *api.Job, p pair) bool {
	switch p.key {
	case "buildArguments":
		j.BuildArguments = d.stringList(p)
	case "noClean":
		j.NoClean = d.boolean(p, p.key)
	case "collect":
		j.Collect = d.boolean(p, p.key)
	case "goProfiles":
		j.GoProfiles = d.boolean(p, p.key)
	case "collectArguments":
		j.CollectArguments = d.text(p, p.key)
	case "memoryLimitInBytes":
		v := d.float(p, p.key)
		if v < 0 || v != math.Trunc(v) {
			d.fail(p.keyPos, p.key, "want a whole number of bytes, got %s", describe(p.value))
			return true
		}
		j.MemoryLimitInBytes = uint64(v)
	case "cpuLimitRatio":
		if j.CPULimitRatio = d.float(p, p.key); j.CPULimitRatio < 0 {
			d.fail(p.keyPos, p.key, "must not be negative")
		}
	default:
		return false
	}
	return true
}

// dockerSource decodes source.docker* into s; it reports whether the key was one of them.
func (d *decoder) dockerSource(s *api.Source, e pair, key string) bool {
	v := dockerField(s, e.key)
	if v == nil {
		return false
	}
	*v = d.text(e, key)
	return true
}

// dockerField is the field of s for a docker* key (nil for another key).
func dockerField(s *api.Source, key string) *string {
	switch key {
	case "dockerFile":
		return &s.DockerFile
	case "dockerImageName":
		return &s.DockerImageName
	case "dockerContextDirectory":
		return &s.DockerContextDirectory
	case "dockerLoad":
		return &s.DockerLoad
	case "dockerPull":
		return &s.DockerPull
	case "dockerCommand":
		return &s.DockerCommand
	}
	return nil
}

// stringList reads a list of scalars (or one scalar) as strings.
func (d *decoder) stringList(p pair) []string {
	switch {
	case p.value.isNull():
		return nil
	case !p.value.isList():
		return []string{d.text(p, p.key)}
	}
	var out []string
	for _, it := range p.value.items {
		s, ok := it.str()
		if !ok {
			d.fail(it.pos, p.key, "want a list of strings, got %s", describe(it))
			continue
		}
		out = append(out, s)
	}
	return out
}

// applyJobDocker puts the job's top-level docker* keys (crank's job model has them there; the
// ones under source: are its older form) into its source; a key set in both places with two
// values is an error naming both.
func (d *decoder) applyJobDocker(j *api.Job) {
	if len(d.jobDocker) == 0 {
		return
	}
	if j.Source == nil {
		j.Source = &api.Source{}
	}
	for _, p := range d.jobDocker {
		f := dockerField(j.Source, p.key)
		was := *f
		d.dockerSource(j.Source, p, p.key)
		switch {
		case *f == "":
			*f = was
		case was != "" && was != *f:
			d.fail(p.keyPos, p.key, "source.%s is %q and %s is %q: give one", p.key, was, p.key, *f)
		}
	}
	if *j.Source == (api.Source{}) {
		j.Source = nil
	}
}
