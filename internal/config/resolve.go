package config

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/script"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// Request is what the command line asks for.
type Request struct {
	Scenario  string
	Profiles  []string          // --profile, repeatable, applied in order
	Variables map[string]string // --variable name=value (raw strings, read as YAML scalars)
	// JSONVariables are --variable-json name=JSON: typed values (numbers, lists, objects), over Variables.
	JSONVariables map[string]any
	Overrides     []Override // --<service>.<path> value, in command-line order
	// Jobs, instead of Scenario, runs these jobs (crank's --job NAME): one service each.
	Jobs []string
	// ScriptOutput receives what onConfigure scripts print with console.log (nil: discarded).
	ScriptOutput io.Writer
}

// Resolved is a scenario ready to run: one rendered job per service.
type Resolved struct {
	Scenario string
	Profiles []string
	Services []Service // in the scenario's YAML order
	// Warnings are problems that do not stop the run: keys nobody knows (not used), a variable
	// given for this run that no template reads (unread.go). Notes are crank keys that have no
	// effect here.
	Warnings, Notes []string
	// Variant holds the variables set to other values than the scenario's defaults (Variant).
	Variant map[string]string
}

// FetchedOnly returns the endpoints that only files fetched from a URL name (no local file and no
// option), each with the URL of a file naming it: crank sends them no token but one scoped to them.
func (r *Resolved) FetchedOnly() map[string]string {
	out := map[string]string{}
	for _, s := range r.Services {
		for ep, file := range s.fetched {
			out[ep] = file
		}
	}
	for _, s := range r.Services {
		for ep := range s.local {
			delete(out, ep)
		}
	}
	return out
}

// Service is one service of the scenario.
type Service struct {
	Name string
	Job  api.Job
	// Endpoints are the agents to run on; empty means the embedded local agent.
	Endpoints []string
	// Thresholds are the service's pass/fail conditions (key thresholds of its job, scenario or profile).
	Thresholds []threshold.Threshold
	// Weights are the endpoints' shares of a load (key weights, one per endpoint); nil: even.
	Weights []float64
	// Shares, for a load service on several endpoints, are each endpoint's part of the load: its
	// job rendered with its share of rate and connections (split.go). Nil otherwise.
	Shares []Share
	reads  reads   // what the job reads of its variables
	given  []given // the variables the scenario and the command line give the service
	// swapped: the command line swapped the service's job (--load.job bombardier).
	swapped bool
	// fetched and local: where the endpoints were named (decoder.fetched, decoder.local).
	fetched map[string]string
	local   map[string]bool

	raw *node // the job before rendering (its share is rendered from it)
	// defaults are the variables' values without the command line's settings (Variant), when
	// the command line gives any; noDefaults says they could not be rendered without them.
	defaults   map[string]any
	noDefaults bool
	cmdVars    *node  // the command line's variables
	body       *node  // the rendered job, until decoded
	vars       *node  // its rendered variables
	where      string // scenario and service, for errors
}

// Scenarios lists the scenario names, sorted.
func (c *Config) Scenarios() []string { return sortedKeys(c.section(keyScenarios)) }

// Jobs lists the job names, sorted.
func (c *Config) Jobs() []string { return sortedKeys(c.section(keyJobs)) }

// Profiles lists the profile names, sorted.
func (c *Config) Profiles() []string { return sortedKeys(c.section(keyProfiles)) }

func sortedKeys(n *node) []string {
	ks := n.keys()
	sort.Strings(ks)
	return ks
}

func oneOf(names []string) string {
	if len(names) == 0 {
		return "there are none"
	}
	return strings.Join(names, ", ")
}

// Resolve builds every service of the requested scenario: base job, scenario keys, profiles,
// overrides, variables, Liquid rendering, strict decoding. All problems are returned together.
func (c *Config) Resolve(req Request) (*Resolved, error) {
	scen, err := c.scenario(req)
	if err != nil {
		return nil, err
	}
	profiles, errs := c.profileNodes(req.Profiles)
	cmdVars, err := commandLineVariables(req.Variables)
	if err != nil {
		errs = append(errs, err)
	} else if len(req.JSONVariables) > 0 {
		cmdVars = merge(cmdVars, fromAny(req.JSONVariables, Pos{File: commandLine}))
	}
	perService, oErrs := splitOverrides(req.Scenario, scen, req.Overrides)
	errs = append(errs, oErrs...)
	c.logUnmatchedEntries(scen, profiles)

	r := &Resolved{Scenario: req.Scenario, Profiles: slices.Clone(req.Profiles)}
	r.Warnings, r.Notes = slices.Clone(c.warns), slices.Clone(c.notes)
	engine := newEngine()
	js := script.New(req.ScriptOutput) // shared by every service's onConfigure, as in crank
	js.Set("configuration", c.root.toAny())
	for _, svc := range scen.without(keySweep, keyCapacity).pairs {
		s, err := c.resolveService(engine, req.Scenario, svc, profiles, perService[svc.key], cmdVars)
		if err == nil {
			err = c.decodeService(js, r, &s)
		}
		if err == nil {
			err = c.split(engine, &s)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.Services = append(r.Services, s)
	}
	if len(errs) > 0 {
		return nil, errors.Join(unique(errs)...)
	}
	if err := c.checkUnread(r, cmdVars); err != nil {
		return nil, err
	}
	if err := checkLoadTools(r, cmdVars); err != nil {
		return nil, err
	}
	return r, nil
}

// profileNodes returns the requested profiles that exist (with their names), and an error for
// each one that does not.
func (c *Config) profileNodes(names []string) ([]pair, []error) {
	var out []pair
	var errs []error
	for _, name := range names {
		p := c.section(keyProfiles).pair(name)
		if p == nil {
			errs = append(errs, fmt.Errorf("unknown profile %q; profiles: %s", name, oneOf(c.Profiles())))
			continue
		}
		out = append(out, *p)
	}
	return out, errs
}

// commandLineVariables reads --variable values as YAML scalars.
func commandLineVariables(raw map[string]string) (*node, error) {
	pos := Pos{File: commandLine}
	vars := newMap(pos)
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--variable =%s: empty name; want name=value", raw[k])
		}
		vars.set(k, pos, scalar(parseScalarText(raw[k]), pos))
	}
	return vars, nil
}

// splitOverrides groups overrides by service (name matched as written, else ignoring case).
func splitOverrides(scenario string, scen *node, overrides []Override) (map[string][]Override, []error) {
	out := map[string][]Override{}
	var errs []error
	for _, o := range overrides {
		p := scen.pairFold(o.Service)
		if p == nil {
			errs = append(errs, fmt.Errorf("%s: %s: scenario %q has no service %q; services: %s", commandLine, o, scenario, o.Service, oneOf(scen.keys())))
			continue
		}
		out[p.key] = append(out[p.key], o)
	}
	return out, errs
}

// profileMatches reports whether a profile's jobs/agents entry applies to service svc: by its
// name or one of its aliases.
func profileMatches(entry pair, svc string) bool {
	if entry.key == svc {
		return true
	}
	aliases := entry.value.get("aliases")
	if !aliases.isList() {
		return false
	}
	for _, a := range aliases.items {
		if s, _ := a.str(); s == svc {
			return true
		}
	}
	return false
}

// applyProfile lays a profile over one service's job: first its common keys (variables and any
// job key), then each jobs:/agents: entry naming the service or one of its aliases.
func applyProfile(job, profile *node, svc string) {
	patch(job, profile.without("jobs", "agents"))
	for _, group := range []string{"jobs", "agents"} {
		g := profile.get(group)
		if !g.isMap() {
			continue
		}
		for _, e := range g.pairs {
			if e.value.isMap() && profileMatches(e, svc) {
				patch(job, e.value.without("aliases"))
			}
		}
	}
}

func (c *Config) logUnmatchedEntries(scen *node, profiles []pair) {
	for _, p := range profiles {
		for _, group := range []string{"jobs", "agents"} {
			for _, e := range p.value.get(group).pairsOrNil() {
				if !slices.ContainsFunc(scen.keys(), func(s string) bool { return profileMatches(e, s) }) {
					c.log.Debug("config: profile entry matches no service", "profile", p.key, "entry", e.key, "at", e.keyPos.String())
				}
			}
		}
	}
}

func (n *node) pairsOrNil() []pair {
	if n.isMap() {
		return n.pairs
	}
	return nil
}

// resolveService builds one service's job.
func (c *Config) resolveService(e *engine, scenario string, svc pair, profiles []pair, overrides []Override, cmdVars *node) (Service, error) {
	where := fmt.Sprintf("scenario %q: service %q", scenario, svc.key)
	spec := svc.value
	jobName, _ := spec.get("job").str()
	jobPos := spec.get("job").pos
	for _, o := range overrides {
		if o.isJobSwap() {
			jobName, jobPos = o.Value, Pos{File: commandLine}
		}
	}
	base := c.section(keyJobs).get(jobName)
	if base == nil && jobPos.File == commandLine && !slices.ContainsFunc(overrides, Override.isJobSwap) {
		base = newMap(jobPos) // crank's --job NAME: a job the command line defines
	}
	if !base.isMap() {
		return Service{}, fmt.Errorf("%s: %s: unknown job %q; jobs: %s", jobPos, where, jobName, oneOf(c.Jobs()))
	}
	job := merge(base.clone(), spec.without("job", "agent"))
	agentName := svc.key // crank: a service's agent: names the profile entry it takes
	if a, ok := spec.get("agent").str(); ok && a != "" {
		agentName = a
	}
	if err := checkPlacement(svc, agentName, profiles, overrides); err != nil {
		return Service{}, fmt.Errorf("scenario %q: %w", scenario, err)
	}
	for _, p := range profiles {
		applyProfile(job, p.value, agentName)
	}
	// The variables as the scenario and profiles give them, before the command line's: the
	// defaults a run's variant is told against (Variant), read in this one resolution.
	scenarioVars := job.get(keyVariables).clone()
	var errs []error
	for _, o := range overrides {
		if !o.isJobSwap() {
			if err := applyOverride(job, o); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", commandLine, where, err))
			}
		}
	}
	ths, tErrs := thresholds(job, svc.key, where)
	errs = append(errs, tErrs...)
	if len(errs) > 0 {
		return Service{}, errors.Join(errs...)
	}
	raw := job.without(keyThresholds).clone()
	s, err := c.finish(e, where, svc.key, jobName, job.without(keyThresholds), cmdVars)
	s.Thresholds = ths
	s.raw, s.cmdVars = raw, cmdVars
	s.given = givenVariables(svc, where, overrides)
	s.swapped = slices.ContainsFunc(overrides, Override.isJobSwap)
	if err == nil && (len(cmdVars.pairsOrNil()) > 0 || slices.ContainsFunc(s.given, func(g given) bool { return g.flag })) {
		s.defaults, s.noDefaults = c.defaultVariables(e, scenarioVars, where)
	}
	return s, err
}

// finish merges and renders the variables, renders the job and decodes it. A job with a metrics
// endpoint gets the default counters (measure.WithDefaultCounters) besides its own.
func (c *Config) finish(e *engine, where, svc, jobName string, job, cmdVars *node) (Service, error) {
	vars := newMap(Pos{})
	vars = merge(vars, c.root.get(keyVariables))
	vars = merge(vars, job.get(keyVariables))
	vars = merge(vars, cmdVars)
	reads := serviceReads(e, job, vars)
	if err := renderVariables(e, vars, where); err != nil {
		return Service{}, err
	}
	if errs := checkValues(vars, cmdVars, where); len(errs) > 0 {
		return Service{}, errors.Join(errs...)
	}
	bindings, _ := vars.toAny().(map[string]any)
	body := job.without(keyVariables, "job")
	if _, err := renderTree(e, &body, withJob(bindings, job), false, where, ""); err != nil {
		return Service{}, err
	}
	return Service{Name: svc, Job: api.Job{Service: svc, Name: jobName, Variables: bindings}, body: body, vars: vars, where: where, reads: reads}, nil
}

// decodeService decodes a rendered service's job strictly, runs crank's wrapper translation and
// the job's onConfigure scripts, and collects warnings and notes into r.
func (c *Config) decodeService(js *script.Engine, r *Resolved, s *Service) error {
	d := &decoder{where: s.where, dirs: c.dirs, log: c.log, strict: c.strict, fetched: map[string]string{}, local: map[string]bool{}}
	j := &s.Job
	s.Endpoints = d.job(s.body, j)
	s.fetched, s.local = d.fetched, d.local
	s.body = nil
	s.Weights = d.weights
	if len(d.weights) > 0 && len(d.weights) != len(s.Endpoints) {
		d.fail(d.weightsPos, "weights", "%d weights for %d endpoints: want one per endpoint, in the endpoints' order", len(d.weights), len(s.Endpoints))
	}
	if d.project != "" {
		d.applyProject(j)
	}
	d.applyDotnetKeys(j)
	r.Warnings = append(r.Warnings, d.warns...)
	r.Notes = append(r.Notes, d.notes...)
	if len(d.errs) > 0 {
		return errors.Join(d.errs...)
	}
	for _, sn := range d.onConfigure {
		s.reads.script(sn.Source)
	}
	if err := onConfigure(js, j, d.onConfigure); err != nil {
		return fmt.Errorf("%s: %w", s.where, err)
	}
	if j.MetricsPort != 0 || j.MetricsURL != "" {
		j.Counters = measure.WithDefaultCounters(j.Counters)
	}
	defaultTimeout(j, s.vars)
	s.vars = nil
	return nil
}

// unique drops errors whose text repeats an earlier one's (a bad --variable seen by every service).
func unique(errs []error) []error {
	seen := map[string]bool{}
	var out []error
	var flat []error
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			flat = append(flat, j.Unwrap()...)
		} else {
			flat = append(flat, err)
		}
	}
	for _, err := range flat {
		if msg := err.Error(); !seen[msg] {
			seen[msg] = true
			out = append(out, err)
		}
	}
	return out
}

// withJob is what a job's templates see: its variables and, as crank gives its templates, the job
// itself as `job` (its keys as written, unrendered: {{job.executable}}), unless a variable is
// named job.
func withJob(vars map[string]any, job *node) map[string]any {
	if _, taken := vars["job"]; taken {
		return vars
	}
	out := make(map[string]any, len(vars)+1)
	for k, v := range vars {
		out[k] = v
	}
	out["job"] = job.toAny()
	return out
}
