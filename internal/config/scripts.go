package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/script"
)

// Snippet is a script as the command line runs it: Where names its file, line and key. Remote:
// its file was loaded from a URL, so it runs without fs (script.Engine.Distrust).
type Snippet struct {
	Where  string
	Source string
	Remote bool
}

// ResultDef is one of crank's root `results:` definitions: a result named Name computed from the
// samples of Measurement with the JavaScript functions Aggregate (over one endpoint's samples)
// and Reduce (across endpoints).
type ResultDef struct {
	Name, Measurement, Description, Format, Aggregate, Reduce string
	Excluded                                                  bool
}

// Scripts are the root-level JavaScript of the configuration, as crank runs them after a run.
type Scripts struct {
	Results           []ResultDef
	Named             map[string]Snippet // scripts:, run with --script NAME
	OnResultsCreating []Snippet          // onResultsCreating and defaultScripts: before results are computed
	OnResultsCreated  []Snippet          // after results are computed
}

// snippets reads a script key: one string or a list of strings (null and comment-only lists are none).
func (d *decoder) snippets(p pair, key string) []Snippet {
	out, err := readSnippets(p, key)
	if err != nil {
		d.errs = append(d.errs, fmt.Errorf("%s: %w", d.where, err))
	}
	return out
}

func readSnippets(p pair, key string) ([]Snippet, error) {
	var items []*node
	switch {
	case p.value.isNull():
		return nil, nil
	case p.value.isList():
		items = p.value.items
	default:
		items = []*node{p.value}
	}
	var out []Snippet
	for i, it := range items {
		s, ok := it.str()
		if !ok && !it.isNull() {
			return nil, fmt.Errorf("%s: %s[%d]: want JavaScript text", it.pos, key, i)
		}
		if strings.TrimSpace(s) != "" {
			out = append(out, Snippet{Where: fmt.Sprintf("%s %s[%d]", it.pos, key, i), Source: s, Remote: isURL(it.pos.File)})
		}
	}
	return out, nil
}

// Scripts returns the root results:, scripts:, defaultScripts:, onResultsCreating: and
// onResultsCreated: of the configuration, checked.
func (c *Config) Scripts() (*Scripts, error) {
	out := &Scripts{Named: map[string]Snippet{}}
	var errs []string
	for _, key := range []string{"onResultsCreating", "defaultScripts", "onResultsCreated"} {
		p := c.root.pairFold(key)
		if p == nil {
			continue
		}
		list, err := readSnippets(*p, key)
		if err != nil {
			errs = append(errs, err.Error())
		}
		for _, s := range list {
			if key == "onResultsCreated" {
				out.OnResultsCreated = append(out.OnResultsCreated, s)
			} else {
				out.OnResultsCreating = append(out.OnResultsCreating, s)
			}
		}
	}
	if p := c.root.pairFold("scripts"); p != nil && !p.value.isNull() {
		if !p.value.isMap() {
			errs = append(errs, fmt.Sprintf("%s: scripts must map names to JavaScript", p.keyPos))
		}
		for _, e := range p.value.pairsOrNil() {
			s, _ := e.value.str()
			out.Named[e.key] = Snippet{Where: fmt.Sprintf("%s scripts.%s", e.keyPos, e.key), Source: s, Remote: isURL(e.value.pos.File)}
		}
	}
	if p := c.root.pairFold("results"); p != nil && !p.value.isNull() {
		defs, rerrs := resultDefs(p.value)
		out.Results = defs
		errs = append(errs, rerrs...)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}

func resultDefs(n *node) ([]ResultDef, []string) {
	if !n.isList() {
		return nil, []string{fmt.Sprintf("%s: results must be a list of {name, measurement, aggregate, reduce, description, format}", n.pos)}
	}
	var out []ResultDef
	var errs []string
	for i, it := range n.items {
		where := "results[" + strconv.Itoa(i) + "]"
		if !it.isMap() {
			errs = append(errs, fmt.Sprintf("%s: %s: want a mapping", it.pos, where))
			continue
		}
		var r ResultDef
		fields := map[string]*string{"name": &r.Name, "measurement": &r.Measurement, "description": &r.Description,
			"format": &r.Format, "aggregate": &r.Aggregate, "reduce": &r.Reduce}
		for _, e := range it.pairs {
			s, _ := e.value.str()
			key := strings.ToLower(e.key)
			switch dst, ok := fields[key]; {
			case ok:
				*dst = s
			case key == "excluded":
				r.Excluded = strings.EqualFold(s, "true")
			default:
				errs = append(errs, fmt.Sprintf("%s: %s: unknown key %q (want name, measurement, aggregate, reduce, description, format, excluded)", e.keyPos, where, e.key))
			}
		}
		if r.Name == "" {
			errs = append(errs, fmt.Sprintf("%s: %s: name is required", it.pos, where))
		}
		out = append(out, r)
	}
	return out, errs
}

// onConfigure runs a job's onConfigure scripts with `job` (the job as JSON, keys found ignoring
// case: job.Variables.x, job.timeout) and keeps what they change. A script that throws stops the
// run before anything starts, with its message.
func onConfigure(js *script.Engine, j *api.Job, scripts []Snippet) error {
	if len(scripts) == 0 {
		return nil
	}
	tree, err := script.JSON(j)
	if err != nil {
		return err
	}
	js.Set("job", tree)
	for _, s := range scripts {
		if s.Remote {
			js.Distrust("onConfigure at " + s.Where)
		}
		if err := js.Run("onConfigure at "+s.Where, s.Source); err != nil {
			return err
		}
	}
	var out api.Job
	if err := script.FromJSON(tree, &out); err != nil {
		return fmt.Errorf("onConfigure: the job it left is not a job: %w", err)
	}
	if remote := firstRemote(scripts); remote != "" && !slices.Equal(localPaths(j), localPaths(&out)) {
		return fmt.Errorf("onConfigure at %s: loaded from a URL, it may not name files of this machine (source.localFolder, sources' localFolder, buildFiles): %q, was %q", remote, localPaths(&out), localPaths(j))
	}
	*j = out
	return nil
}

func firstRemote(scripts []Snippet) string {
	for _, s := range scripts {
		if s.Remote {
			return s.Where
		}
	}
	return ""
}

// localPaths are the job's paths on this machine, which crank uploads.
func localPaths(j *api.Job) []string {
	var out []string
	if j.Source != nil && j.Source.LocalFolder != "" {
		out = append(out, j.Source.LocalFolder)
	}
	for _, s := range j.Sources {
		if s.LocalFolder != "" {
			out = append(out, s.LocalFolder)
		}
	}
	for _, f := range j.BuildFiles {
		if !isURL(strings.ToLower(f)) {
			out = append(out, f)
		}
	}
	return out
}
