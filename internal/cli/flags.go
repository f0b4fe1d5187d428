package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// runFlags are the options of a scenario run, with crank's flag names.
type runFlags struct {
	configs     []string
	scenario    string
	profiles    []string
	variables   map[string]string
	overrides   [][2]string // flag name without dashes ("load.variables.connections"), value
	jsonOut     string
	iterations  int
	description string
	properties  map[string]string
	dryRun      string
	agentToken  string
	agentCA     string
	compare     string
	session     string
	verbose     bool
	strict      bool
	scripts     []string // --script NAME, run after the results exist
	jsonVars    map[string]any
	jobs        []string // crank's --job NAME: run these jobs instead of a scenario
	interval    float64  // --interval seconds for every job (0: each job's own)
	output      outputFlags
	influx      influxFlags
}

type influxFlags struct {
	url, token, org, bucket string
}

// usageError is bad input on the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// parseRunFlags reads crank's flags. A flag "--a.b value" whose name holds a dot is a service
// override. "--flag=value" and "--flag value" are both accepted.
func parseRunFlags(args []string, getenv func(string) string) (*runFlags, error) {
	f := &runFlags{variables: map[string]string{}, properties: map[string]string{}, iterations: 1, jsonVars: map[string]any{},
		agentToken: getenv("CRANK_AGENT_TOKEN"), agentCA: getenv("CRANK_AGENT_CA")}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") {
			return nil, usagef("unexpected argument %q (flags start with --)", arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		name = flagName(name)
		if switchFlag(f, name) {
			f.output.keep(name, "", false)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, usagef("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if err := f.set(name, value); err != nil {
			return nil, err
		}
		f.output.keep(name, value, true)
	}
	if len(f.configs) == 0 && len(f.jobs) == 0 {
		return nil, usagef("--config is required (for example --config scenarios/plaintext.yml)")
	}
	if f.scenario == "" && len(f.jobs) == 0 {
		return nil, usagef("--scenario is required")
	}
	if f.scenario != "" && len(f.jobs) > 0 {
		return nil, usagef("--scenario and --job can't be used together: both say which jobs run")
	}
	return f, nil
}

func (f *runFlags) set(name, value string) error {
	switch name {
	case "config":
		f.configs = append(f.configs, value)
	case "scenario":
		f.scenario = value
	case "profile":
		f.profiles = append(f.profiles, value)
	case "script":
		f.scripts = append(f.scripts, value)
	case "variable":
		k, v, ok := strings.Cut(value, "=")
		if !ok || k == "" {
			return usagef("--variable %q: want name=value", value)
		}
		f.variables[k] = v
	case "property":
		k, v, ok := strings.Cut(value, "=")
		if !ok || k == "" {
			return usagef("--property %q: want name=value", value)
		}
		f.properties[k] = v
	case "json":
		f.jsonOut = value
	case "iterations":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return usagef("--iterations %q: want a whole number of at least 1", value)
		}
		f.iterations = n
	case "description":
		f.description = value
	case "dry-run", "debug":
		f.dryRun = value
	case "agent-token":
		f.agentToken = value
	case "agent-ca":
		f.agentCA = value
	case "compare":
		f.compare = value
	case "session":
		f.session = value
	case "influx-url":
		f.influx.url = value
	case "influx-token":
		f.influx.token = value
	case "influx-org":
		f.influx.org = value
	case "influx-bucket":
		f.influx.bucket = value
	default:
		if ok, err := f.setMore(name, value); ok || err != nil {
			return err
		}
		if !strings.Contains(name, ".") {
			return usagef("unknown flag --%s (see crank --help)", name)
		}
		f.overrides = append(f.overrides, [2]string{name, value})
	}
	return nil
}

const usage = `crank runs benchmark scenarios on agents.

Usage:
  crank --config FILE --scenario NAME [options]      run a scenario
  crank compare BASE.json HEAD.json [...]            compare results; exit 1 on a regression
  crank regressions --history DIR                    find change points in a history of results
  crank load URL [options]                           the built-in HTTP load generator
  crank push                                         upload spooled results to InfluxDB
  crank version

Run options (crank's names):
  --config FILE            scenario file (repeatable; later files merge over earlier)
  --scenario NAME          scenario to run
  --profile NAME           profile to apply (repeatable)
  --variable name=value    set a variable for every job (repeatable)
  --<service>.<path> VAL   override a job key, e.g. --load.variables.connections 64,
                           --application.environmentVariables GOGC=off, --load.job bombardier
  --json FILE              write the results as JSON
  --iterations N           run N times; results are averaged, each kept under iterations
  --description TEXT       a description stored with the results
  --property name=value    a property stored with the results (repeatable)
  --dry-run FILE           write the resolved scenario as JSON ("-" for stdout) and run nothing
  --compare FILE           compare the results with FILE right after the run (exit 1 on regression)
  --agent-token TOKEN      bearer token for the agents (or CRANK_AGENT_TOKEN)
  --agent-ca FILE          PEM CA certificate(s) that signed the agents' TLS certificates (or CRANK_AGENT_CA)
  --session ID             session id recorded with the results (default: generated)
  --influx-url/--influx-token/--influx-org/--influx-bucket   push results to InfluxDB (or CRANK_INFLUX_*)
  --script NAME            run the configuration's scripts.NAME once the results exist (repeatable)
  --variable-json name=JSON a typed variable: a number, list or object (repeatable)
  --csv FILE               append the results as one CSV row (headers written when FILE is new)
  --no-measurements        leave the samples out of the JSON (results only)
  --no-metadata            leave the metadata out of the JSON
  --command-line-property  record this command line (minus output and secret options) as property command-line
  --interval SECONDS       sampling interval of every job (crank's -m)
  --job NAME               run the job NAME (from the files, or defined by --NAME.<key> options) instead of a scenario (repeatable)
  --strict                 keys nobody knows are errors (by default warnings: crank ignores them)
  -v, --verbose            debug logs
Flag names ignore case. crank's short names: -c config, -s scenario, -p property, -i iterations,
-j json, -m interval, -d debug (= --dry-run), -x exclude, -xo exclude-order, -v verbose.
--sql, --table, --es, --index and --relay are refused: publish to InfluxDB (--influx-url).
`
