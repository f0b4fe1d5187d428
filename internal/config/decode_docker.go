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
	v := &s.DockerFile
	switch e.key {
	case "dockerFile":
	case "dockerImageName":
		v = &s.DockerImageName
	case "dockerContextDirectory":
		v = &s.DockerContextDirectory
	case "dockerLoad":
		v = &s.DockerLoad
	case "dockerPull":
		v = &s.DockerPull
	case "dockerCommand":
		v = &s.DockerCommand
	default:
		return false
	}
	*v = d.text(e, key)
	return true
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
