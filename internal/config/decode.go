package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// decoder turns a rendered job tree into an api.Job: every problem is collected with the
// position of its key and where the job is used (scenario and service). Keys are matched ignoring
// case, as crank does; a key crank knows and this platform does not carry out is refused, and a
// key nobody knows is a warning (an error with strict).
type decoder struct {
	where  string // `scenario "plaintext": service "load"`
	dirs   map[string]string
	log    *slog.Logger
	strict bool
	errs   []error
	warns  []string
	notes  []string
	// fetched are the endpoints named in a file fetched from a URL, each with that file's URL;
	// local, those named in a local file or on the command line.
	fetched map[string]string
	local   map[string]bool
	// project is crank's source.project: one of crank's load wrappers or a .NET build.
	project    string
	projectPos Pos
	// dotnetKeys are crank's .NET keys of the job (framework, sdkVersion...) and its
	// options.benchmarkDotNet, see applyDotnetKeys.
	dotnetKeys      []pair
	benchmarkDotNet pair
	// onConfigure holds the job's onConfigure scripts, run once the job is decoded.
	onConfigure []Snippet
	// jobDocker holds the job's top-level docker* keys, merged into its source once decoded.
	jobDocker []pair
	// files are the job's buildFiles and options.buildFiles, in the order read.
	files []string
	// weights are the job's per-endpoint load weights (key weights), written at weightsPos.
	weights    []float64
	weightsPos Pos
	// roots are the job's named sources with destinationFolder '' (the job's folder itself).
	roots []rootSource
}

func (d *decoder) fail(pos Pos, key, format string, args ...any) {
	d.errs = append(d.errs, fmt.Errorf("%s: %s: key %q: %s", pos, d.where, key, fmt.Sprintf(format, args...)))
}

// job decodes n (minus variables and job, handled by the caller) and returns the endpoints.
func (d *decoder) job(n *node, j *api.Job) []string {
	var endpoints []string
	for _, p := range n.pairs {
		key := canonical(p.key, jobKeys)
		if key == "" {
			d.crankKey(p, "", crankRefusals, jobKeys)
			continue
		}
		p.key = key
		switch key {
		case "endpoints":
			endpoints = d.endpoints(p)
		case "weights":
			d.weights, d.weightsPos = d.weightList(p), p.keyPos
		case "executable", "arguments", "warmupArguments", "buildCommand", "readyStateText", "parser", "metricsUrl", "user", "cpuSet":
			d.stringField(j, p)
		case "environmentVariables":
			j.Environment = d.stringMap(p)
		case "port", "metricsPort":
			d.intField(j, p)
		case "waitForExit":
			j.WaitForExit = d.boolean(p, p.key)
		case "startTimeout", "timeout", "interval", "warmup":
			d.durationField(j, p)
		case "measurementsIntervalSec":
			p.key = "interval"
			d.durationField(j, p)
		case "source":
			j.Source = d.source(p)
		case "sources":
			j.Sources = d.sources(p)
		case "buildFiles":
			d.buildFiles(p, p.key)
		case "project": // crank's project beside sources: (samples/hello), as source.project
			d.setProject(d.text(p, p.key), p.keyPos, p.key)
		case "options":
			j.Options = d.options(p)
		case "counters":
			j.Counters = d.counters(p)
		case "onConfigure":
			d.onConfigure = append(d.onConfigure, d.snippets(p, "onConfigure")...)
		case "isConsoleApp":
			// crank waits for no port for a console app; readiness here already comes from
			// readyStateText, then port, then at once.
			d.boolean(p, p.key)
		case "agent", "job", "variables":
		default: // Docker and resource-limit keys
			if !d.containerKey(j, p) {
				d.jobDocker = append(d.jobDocker, p)
			}
		}
	}
	d.applyJobDocker(j)
	d.applyRoots(j)
	j.BuildFiles = d.files
	return endpoints
}

// crankKey handles a key the decoder does not read: refused if crank knows it (with what to do),
// a note for crank's .NET-only keys, else a warning (an error with strict).
func (d *decoder) crankKey(p pair, prefix string, refusals map[string]refusal, known []string) {
	if name, r, ok := lookupRefusal(refusals, p.key); ok {
		if !r.whenSet || asksForSomething(p.value) {
			d.fail(p.keyPos, prefix+p.key, "crank's %s%s is not supported: %s", prefix, name, r.hint)
		}
		return
	}
	if prefix == "" && canonical(p.key, dotnetKeys) != "" {
		d.dotnetKeys = append(d.dotnetKeys, p) // read once the job is known to be a .NET build or not
		return
	}
	if prefix == "" && canonical(p.key, diagTuningKeys) != "" {
		if asksForSomething(p.value) {
			d.notes = append(d.notes, fmt.Sprintf("%s: %s: crank's %s has no effect here: it tunes crank's .NET diagnostics (dotnetTrace, profile), which are not supported; collect records with perf here (docs/PROFILES.md)", p.keyPos, d.where, p.key))
		}
		return
	}
	if prefix == "" && canonical(p.key, legacyKeys) != "" {
		if asksForSomething(p.value) {
			d.notes = append(d.notes, fmt.Sprintf("%s: %s: crank's %s has no effect here (an old job field crank no longer reads): use a variable", p.keyPos, d.where, p.key))
		}
		return
	}
	msg := fmt.Sprintf("%s: %s: key %q: unknown key, not used%s", p.keyPos, d.where, prefix+p.key,
		didYouMean(p.key, known, refusalKeys(refusals)))
	if d.strict {
		d.errs = append(d.errs, fmt.Errorf("%s (--strict)", msg))
		return
	}
	d.warns = append(d.warns, msg)
}

func (d *decoder) stringField(j *api.Job, p pair) {
	fields := map[string]*string{"executable": &j.Executable, "arguments": &j.Arguments,
		"warmupArguments": &j.WarmupArguments, "buildCommand": &j.BuildCommand, "readyStateText": &j.ReadyStateText,
		"parser": &j.Parser, "metricsUrl": &j.MetricsURL, "user": &j.User, "cpuSet": &j.CpuSet}
	if dst, ok := fields[p.key]; ok {
		*dst = d.text(p, p.key)
	}
}

func (d *decoder) intField(j *api.Job, p pair) {
	v := d.integer(p, p.key)
	if v < 0 || v > 65535 {
		d.fail(p.keyPos, p.key, "%d is not a TCP port", v)
		return
	}
	if p.key == "port" {
		j.Port = v
	} else {
		j.MetricsPort = v
	}
}

func (d *decoder) durationField(j *api.Job, p pair) {
	fields := map[string]*api.Duration{"startTimeout": &j.StartTimeout, "timeout": &j.Timeout,
		"interval": &j.Interval, "warmup": &j.Warmup}
	if dst, ok := fields[p.key]; ok {
		*dst = d.duration(p, p.key)
	}
}

// text reads a scalar as a string (numbers and bools as YAML wrote them).
func (d *decoder) text(p pair, key string) string {
	if p.value.isNull() {
		return ""
	}
	s, ok := p.value.str()
	if !ok {
		d.fail(p.keyPos, key, "want a string")
	}
	return s
}

func (d *decoder) integer(p pair, key string) int {
	switch v := p.value.value; {
	case p.value.isNull():
		return 0
	case p.value.kind != kindScalar:
	default:
		switch x := v.(type) {
		case int:
			return x
		case float64:
			if x == float64(int(x)) {
				return int(x)
			}
		case string:
			if strings.TrimSpace(x) == "" {
				return 0
			}
			if i, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
				return i
			}
		}
	}
	d.fail(p.keyPos, key, "want an integer, got %s", describe(p.value))
	return 0
}

func (d *decoder) boolean(p pair, key string) bool {
	switch x := p.value.value; {
	case p.value.isNull():
		return false
	case p.value.kind == kindScalar:
		if b, ok := x.(bool); ok {
			return b
		}
		if s, ok := x.(string); ok {
			if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
				return b
			}
		}
	}
	d.fail(p.keyPos, key, "want true or false, got %s", describe(p.value))
	return false
}

// duration reads seconds (a number or numeric string) or a Go duration string ("1500ms").
func (d *decoder) duration(p pair, key string) api.Duration {
	if p.value.isNull() {
		return 0
	}
	var secs float64
	switch x := p.value.value.(type) {
	case int:
		secs = float64(x)
	case float64:
		secs = x
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			dur, err := time.ParseDuration(s)
			if err != nil {
				d.fail(p.keyPos, key, "want seconds or a duration such as 90s, got %q", x)
				return 0
			}
			f = dur.Seconds()
		}
		secs = f
	default:
		d.fail(p.keyPos, key, "want seconds or a duration such as 90s, got %s", describe(p.value))
		return 0
	}
	if secs < 0 {
		d.fail(p.keyPos, key, "must not be negative")
		return 0
	}
	return api.Duration(secs * float64(time.Second))
}

func (d *decoder) stringMap(p pair) map[string]string {
	if p.value.isNull() {
		return nil
	}
	if !p.value.isMap() {
		d.fail(p.keyPos, p.key, "want a mapping of NAME: value")
		return nil
	}
	out := make(map[string]string, len(p.value.pairs))
	for _, e := range p.value.pairs {
		out[e.key] = d.text(e, p.key+"."+e.key)
	}
	return out
}

func (d *decoder) endpoints(p pair) []string {
	if p.value.isNull() {
		return nil
	}
	if !p.value.isList() {
		d.fail(p.keyPos, p.key, "want a list of agent URLs")
		return nil
	}
	var out []string
	for _, it := range p.value.items {
		s, _ := it.str()
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			d.fail(it.pos, p.key, "%q is not an agent URL (http(s)://host:port)", s)
			continue
		}
		ep := strings.TrimRight(s, "/")
		out = append(out, ep)
		if isURL(it.pos.File) {
			d.fetched[ep] = it.pos.File
		} else {
			d.local[ep] = true
		}
	}
	return out
}

func describe(n *node) string {
	switch {
	case n.isMap():
		return "a mapping"
	case n.isList():
		return "a list"
	default:
		return fmt.Sprintf("%q", scalarText(n.value))
	}
}

// localFolder makes a relative folder absolute against the folder of the file that declared it
// (the working directory for the command line). A file loaded from a URL may not name a folder or
// file of this machine (key): crank would upload it to the agents that file names, or its own.
func (d *decoder) localFolder(pos Pos, key, folder string) string {
	if folder == "" || isURL(folder) {
		return folder
	}
	if isURL(pos.File) {
		d.fail(pos, key, "%q is a path on this machine, named by a configuration loaded from a URL: only a local configuration file or the command line may name this machine's files (they would be uploaded)", folder)
		return ""
	}
	if filepath.IsAbs(folder) {
		return folder
	}
	if pos.File == commandLine {
		if abs, err := filepath.Abs(folder); err == nil {
			return abs
		}
		return folder
	}
	if dir, ok := d.dirs[pos.File]; ok {
		return filepath.Join(dir, folder)
	}
	return folder
}
