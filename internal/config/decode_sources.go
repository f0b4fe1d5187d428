package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
)

// sources reads crank's named sources: sources.<name>.{localFolder | repository, branchOrCommit,
// destinationFolder}, each placed in destinationFolder (default: its name) inside the job's
// folder. Each is checked here, before anything starts: exactly one of localFolder and
// repository, a destination inside the job's folder, no two destinations one inside the other.
func (d *decoder) sources(p pair) []api.NamedSource {
	if !d.mapping(p) {
		return nil
	}
	var out []api.NamedSource
	for _, e := range p.value.pairs {
		full := "sources." + e.key
		if !e.value.isMap() {
			d.fail(e.keyPos, full, "want a mapping {localFolder or repository, branchOrCommit, destinationFolder}, got %s", describe(e.value))
			continue
		}
		s, root, ok := d.namedSource(e, full)
		if !ok {
			continue
		}
		if root {
			d.roots = append(d.roots, rootSource{s, e.keyPos})
			continue
		}
		for _, o := range out {
			if api.Within(s.Dest(), o.Dest()) || api.Within(o.Dest(), s.Dest()) {
				d.fail(e.keyPos, full, "its folder %q and sources.%s's %q overlap: give each source a folder of its own (destinationFolder)",
					s.Dest(), o.Name, o.Dest())
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b api.NamedSource) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// namedSource decodes one entry of sources; root is true when its destinationFolder is crank's
// empty string (or "."), the job's folder itself; ok is false when it is unusable (already
// reported).
func (d *decoder) namedSource(e pair, full string) (s api.NamedSource, root, ok bool) {
	s = api.NamedSource{Name: e.key}
	destPos := e.keyPos
	for _, f := range e.value.pairs {
		key := canonical(f.key, namedSourceKeys)
		if key == "" {
			d.crankKey(f, full+".", crankNamedSourceRefusals, namedSourceKeys)
			continue
		}
		switch key {
		case "localFolder":
			s.LocalFolder = d.localFolder(f.value.pos, full+"."+key, d.text(f, full+"."+key))
		case "repository":
			s.Repository = d.text(f, full+"."+key)
		case "branchOrCommit":
			s.BranchOrCommit = d.text(f, full+"."+key)
			if _, commit, ok := strings.Cut(s.BranchOrCommit, "#"); ok && commit != "" {
				s.BranchOrCommit = commit
			}
		case "destinationFolder":
			s.DestinationFolder, destPos = d.text(f, full+"."+key), f.keyPos
			if c := strings.TrimSpace(s.DestinationFolder); c == "" || c == "." || c == "./" {
				s.DestinationFolder, root = "", true
			}
		case "sourceKey", "noBuild", "cacheOnAgent": // the agent's caches are keyed by content
		}
	}
	ok = true
	if (s.LocalFolder == "") == (s.Repository == "") {
		d.fail(e.keyPos, full, "give exactly one of localFolder (uploaded) and repository (cloned by the agent)")
		ok = false
	}
	if root {
		return s, true, ok
	}
	dest := s.DestinationFolder
	if dest == "" {
		dest = s.Name
	}
	if err := api.CheckDestination(dest); err != nil { // as written, so the message quotes it
		d.fail(destPos, full+".destinationFolder", "%v", err)
		ok = false
	}
	return s, false, ok
}

// rootSource is a named source that fills the job's folder, and where it was declared.
type rootSource struct {
	api.NamedSource
	pos Pos
}

// applyRoots makes the one named source whose destinationFolder is empty (or ".") the job's own source, as
// crank puts it in the job's folder itself. Two of them, or one beside source:, are refused:
// both would fill the same folder.
func (d *decoder) applyRoots(j *api.Job) {
	for i, r := range d.roots {
		key := "sources." + r.Name + ".destinationFolder"
		switch {
		case i > 0:
			d.fail(r.pos, key, "'' (or .) puts sources.%s in the job's folder itself, where sources.%s already goes: give one a folder of its own", r.Name, d.roots[0].Name)
		case j.Source != nil && (j.Source.LocalFolder != "" || j.Source.Repository != ""):
			d.fail(r.pos, key, "'' (or .) puts sources.%s in the job's folder itself, which the job's source: already fills: give it a folder of its own", r.Name)
		default:
			if j.Source == nil {
				j.Source = &api.Source{}
			}
			j.Source.LocalFolder, j.Source.Repository, j.Source.BranchOrCommit = r.LocalFolder, r.Repository, r.BranchOrCommit
		}
	}
}

// buildFiles reads crank's buildFiles ("path[;folder]", a list or one string): a local path
// (resolved as localFolder is) or an http(s) URL, and a folder inside the job's folder.
func (d *decoder) buildFiles(p pair, key string) {
	var items []*node
	switch {
	case p.value.isNull():
		return
	case p.value.isList():
		items = p.value.items
	default:
		items = []*node{p.value}
	}
	for i, it := range items {
		raw, ok := it.str()
		if !ok {
			d.fail(it.pos, key, "want a list of \"path[;folder]\" strings, got %s", describe(it))
			continue
		}
		src, folder, err := api.ParseBuildFile(raw)
		if err != nil {
			d.fail(it.pos, fmt.Sprintf("%s[%d]", key, i), "%v", err)
			continue
		}
		if l := strings.ToLower(src); !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
			src = d.localFolder(it.pos, fmt.Sprintf("%s[%d]", key, i), src)
		}
		if folder != "" {
			src += ";" + folder
		}
		d.files = append(d.files, src)
	}
}
