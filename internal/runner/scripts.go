package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/script"
)

// checkScripts reads the configuration's root scripts and checks that every --script exists,
// before anything starts.
func checkScripts(cfg *config.Config, names []string) (*config.Scripts, error) {
	s, err := cfg.Scripts()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, ok := s.Named[n]; !ok {
			known := make([]string, 0, len(s.Named))
			for k := range s.Named {
				known = append(known, k)
			}
			sort.Strings(known)
			return nil, fmt.Errorf("--script %s: no script of that name under scripts:; scripts: %s", n, oneOf(known))
		}
	}
	return s, nil
}

func oneOf(names []string) string {
	if len(names) == 0 {
		return "there are none"
	}
	return fmt.Sprint(names)
}

// ErrScripts is an error of crank's scripts after a run (root results:, onResultsCreating/Created,
// --script): errors.Is tells it from the run's own. It is the scenario's error, not the measured
// application's, so a search stops on it rather than skipping what it measured.
var ErrScripts = errors.New("crank's scripts failed")

// scriptError is a script's error, its message unchanged (the script's place and what it threw),
// that is ErrScripts.
type scriptError struct{ error }

func (e scriptError) Unwrap() error { return e.error }

func (scriptError) Is(target error) bool { return target == ErrScripts }

// Script runs crank's scripts on one measured run's own results (applyScripts), for a run whose
// judgement comes later on the runs merged (a sweep's variant: JudgeMerged), so that they run once
// per run and never on a mean. The run is diagnosed first (noProbe: why no probe ran), as Execute
// does, so that the scripts see its diagnosis (benchmarks.diagnostics). Its error is ErrScripts.
func (p *Prepared) Script(res *results.Result, noProbe string) error {
	p.diagnose(res, noProbe)
	return p.script(res, nil)
}

// script is the scripts step of every measured run (Execute, Judge, Script); keep is applyScripts'.
func (p *Prepared) script(res *results.Result, keep func(*results.Result, error) int) error {
	if err := applyScripts(p.Scripts, p.Plan.Source.Scripts, res, p.env.Stderr, keep); err != nil {
		return scriptError{err}
	}
	return nil
}

// conclude is the end of every judgement of one run (Execute, Judge): the scripts, then the
// thresholds, which may name what the scripts add. A scripts' error fails the run (ExitFailed)
// with its message after the thresholds' failures; it is returned (ErrScripts) to be said.
func (p *Prepared) conclude(res *results.Result, keep func(*results.Result, error) int) (int, error) {
	scriptErr := p.script(res, keep)
	verdict := p.thresholds(res)
	if scriptErr != nil {
		res.Failures = append(res.Failures, scriptErr.Error())
		res.ReturnCode, verdict = ExitFailed, ExitFailed
	}
	return verdict, scriptErr
}

// applyScripts does what crank does once a run's results exist: onResultsCreating (and
// defaultScripts) first, then the root results: definitions computed from each service's samples
// with their aggregate and reduce functions, then onResultsCreated and each --script, with
// `benchmarks` (the run's jobs and properties; keys found ignoring case). What the scripts
// change is kept.
//
// keep (nil: none) is called with the results as they were before the scripts when a script's
// built-in call cannot be stopped and ends the process: what was measured is written first, and
// keep's answer is the exit status.
func applyScripts(s *config.Scripts, named []string, res *results.Result, out io.Writer, keep func(*results.Result, error) int) error {
	if len(s.OnResultsCreating) == 0 && len(s.Results) == 0 && len(s.OnResultsCreated) == 0 && len(named) == 0 {
		return nil
	}
	js := script.New(out)
	if keep != nil {
		measured, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("keeping the results before the scripts: %w", err)
		}
		js.BeforeAbort(func(why error) int {
			var saved results.Result
			if err := json.Unmarshal(measured, &saved); err != nil {
				return ExitFailed
			}
			return keep(&saved, why)
		})
	}
	js.SetRequire(func(name string) (string, string, bool) {
		sn, ok := s.Named[name]
		if sn.Remote {
			js.Distrust(sn.Where)
		}
		return sn.Where, sn.Source, ok
	})
	for _, sn := range s.OnResultsCreating {
		if err := runScript(js, sn); err != nil {
			return err
		}
	}
	for _, svc := range sortedJobs(res) {
		if err := computeResults(js, s.Results, res.JobResults.Jobs[svc]); err != nil {
			return fmt.Errorf("service %q: %w", svc, err)
		}
	}
	var after []config.Snippet
	after = append(after, s.OnResultsCreated...)
	for _, n := range named {
		after = append(after, s.Named[n])
	}
	if len(after) == 0 {
		return nil
	}
	tree, err := script.JSON(res.JobResults)
	if err != nil {
		return err
	}
	js.Set("benchmarks", tree)
	for _, sn := range after {
		if err := runScript(js, sn); err != nil {
			return err
		}
	}
	var back results.JobResults
	if err := script.FromJSON(tree, &back); err != nil {
		return fmt.Errorf("the results the scripts left are not results: %w", err)
	}
	res.JobResults = back
	return nil
}

// runScript runs a root script, without fs from then on when it was loaded from a URL.
func runScript(js *script.Engine, sn config.Snippet) error {
	if sn.Remote {
		js.Distrust(sn.Where)
	}
	return js.Run(sn.Where, sn.Source)
}

func sortedJobs(res *results.Result) []string {
	names := make([]string, 0, len(res.JobResults.Jobs))
	for n := range res.JobResults.Jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// computeResults adds each result definition whose measurement the service has: the measured
// samples of each endpoint aggregated by the definition's function, then reduced across endpoints.
func computeResults(js *script.Engine, defs []config.ResultDef, jr *results.JobResult) error {
	for _, d := range defs {
		if d.Excluded {
			delete(jr.Results, d.Name)
			continue
		}
		measurement := d.Measurement
		if measurement == "" {
			measurement = d.Name
		}
		var perEndpoint []float64
		var last any
		for _, tl := range jr.Measurements {
			var vals []float64
			for _, m := range tl {
				if m.Name == measurement && m.Measured() {
					vals = append(vals, m.Value)
				}
			}
			if len(vals) == 0 {
				continue
			}
			v, err := js.Call(orMax(d.Aggregate), vals)
			if err != nil {
				return fmt.Errorf("result %q: aggregate %q: %w", d.Name, d.Aggregate, err)
			}
			last = v
			if f, ok := v.(float64); ok {
				perEndpoint = append(perEndpoint, f)
			}
		}
		switch {
		case last == nil:
			continue
		case len(perEndpoint) == 0:
			setValue(jr, d.Name, last)
		case len(perEndpoint) == 1:
			jr.Results[d.Name] = perEndpoint[0]
		default:
			v, err := js.Call(orMax(d.Reduce), perEndpoint)
			if err != nil {
				return fmt.Errorf("result %q: reduce %q: %w", d.Name, d.Reduce, err)
			}
			setValue(jr, d.Name, v)
		}
		describe(jr, d)
	}
	return nil
}

func orMax(fn string) string {
	if fn == "" {
		return "max"
	}
	return fn
}

func setValue(jr *results.JobResult, name string, v any) {
	if f, ok := v.(float64); ok {
		jr.Results[name] = f
		return
	}
	if jr.Values == nil {
		jr.Values = map[string]any{}
	}
	jr.Values[name] = v
}

// describe adds or updates the metadata of a computed result, as crank does.
func describe(jr *results.JobResult, d config.ResultDef) {
	for i := range jr.Metadata {
		if jr.Metadata[i].Name == d.Name {
			if d.Description != "" {
				jr.Metadata[i].ShortDescription = d.Description
			}
			if d.Format != "" {
				jr.Metadata[i].Format = d.Format
			}
			return
		}
	}
	desc := d.Description
	if desc == "" {
		desc = d.Name
	}
	jr.Metadata = append(jr.Metadata, api.Metadata{Source: "results", Name: d.Name, Aggregate: api.Operation(d.Aggregate),
		Reduce: api.Operation(d.Reduce), Format: d.Format, ShortDescription: desc, LongDescription: desc})
}
