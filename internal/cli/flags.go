package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/flags"
	"github.com/crankshaft/crankshaft/internal/suggest"
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
	tokenFile   string   // --agent-token-file
	tokenFor    []string // --agent-token-for URL[,URL...], repeatable
	compare     []string // --compare FILE, repeatable as in crank
	session     string
	verbose     bool
	strict      bool
	scripts     []string // --script NAME, run after the results exist
	jsonVars    map[string]any
	jobs        []string // crank's --job NAME: run these jobs instead of a scenario
	interval    float64  // --interval seconds for every job (0: each job's own)
	output      outputFlags
	influx      influxFlags
	verdict     verdictFlags
	spread      spreadFlags
	noProbe     bool // --no-probe: never run the probe
	forceProbe  bool // --probe: run the probe whatever the verdict
	display     displayFlags
	importMap   []config.ImportMapping // CRANK_IMPORT_MAP's, then --import-map's (repeatable)
}

// displayFlags say what is shown besides the tables.
type displayFlags struct {
	quiet      bool   // --quiet: only the results
	outputDir  string // --output-dir: each job's build log and output
	chart      bool   // --chart: a chart of each measurement's samples in the tables
	chartType  string // --chart-type bar|hex
	chartScale string // --chart-scale off|auto
	ownSteps   bool   // the command says its progress by rounds: the runs' steps only with --verbose
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
		agentToken: getenv("CRANK_AGENT_TOKEN"), agentCA: getenv("CRANK_AGENT_CA"), verdict: newVerdictFlags(),
		spread: spreadFlags{auto: autoIterations{precision: DefaultPrecision, max: DefaultMaxIterations}}}
	maps, err := config.ParseImportMapEnv(getenv(config.ImportMapEnv))
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	f.importMap = maps
	for i := 0; i < len(args); i++ {
		name, value, hasValue, isFlag := flags.Cut(args[i])
		if !isFlag {
			return nil, usagef("unexpected argument %q (flags start with --)", args[i])
		}
		name = flagName(name)
		if switchFlag(f, name) {
			f.output.keep(name, "", false)
			continue
		}
		if err := refusedFlag(name); err != nil {
			return nil, err
		}
		if name == "no-probe" || name == "probe" { // the last one given wins
			f.noProbe, f.forceProbe = name == "no-probe", name == "probe"
			continue
		}
		if name == "quiet" || name == "chart" {
			f.display.quiet = f.display.quiet || name == "quiet"
			f.display.chart = f.display.chart || name == "chart"
			continue
		}
		value, err := flags.Value(args, &i, name, value, hasValue)
		if err != nil {
			return nil, &usageError{err.Error()}
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
	if err := f.spread.check(f.iterations); err != nil {
		return nil, err
	}
	if f.spread.auto.on {
		f.iterations = f.spread.auto.max
	}
	return f, nil
}

// splitFlags reads a command's own flags out of args and returns the rest (the run flags, in
// order), in crank's one flag style (flags.Split, names as crank compares them).
func splitFlags(args, valued, switches []string, set func(name, value string, hasValue bool) error) ([]string, error) {
	return flags.Split(args, valued, switches, flagName, set)
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
	case "json":
		f.jsonOut = value
	case "iterations":
		if strings.EqualFold(value, "auto") {
			f.spread.auto.on, f.spread.iterationSet = true, true
			return nil
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return usagef("--iterations %q: want a whole number of at least 1, or auto", value)
		}
		f.iterations = n
		f.spread.iterationSet = true
	case "description":
		f.description = value
	case "dry-run", "debug":
		f.dryRun = value
	default:
		if ok, err := f.verdict.set(name, value); ok {
			return err
		}
		if ok, err := f.spread.set(name, value); ok {
			return err
		}
		if ok, err := f.setMore(name, value); ok || err != nil {
			return err
		}
		if ok, err := f.setAgent(name, value); ok || err != nil {
			return err
		}
		if !strings.Contains(name, ".") {
			return unknownFlag(name)
		}
		f.overrides = append(f.overrides, [2]string{name, value})
	}
	return nil
}

// setAgent reads the flags of the agents' tokens, the session, what is shown and InfluxDB;
// handled is false for any other flag.
func (f *runFlags) setAgent(name, value string) (handled bool, err error) {
	switch name {
	case "agent-token":
		f.agentToken = value
	case "agent-token-file":
		f.tokenFile = value
	case "agent-token-for":
		for u := range strings.SplitSeq(value, ",") {
			if _, err := api.EndpointKey(u); err != nil {
				return true, usagef("--agent-token-for: %v", err)
			}
			f.tokenFor = append(f.tokenFor, u)
		}
	case "agent-ca":
		f.agentCA = value
	case "compare":
		f.compare = append(f.compare, value)
	case "session":
		f.session = value
	case "output-dir":
		f.display.outputDir = value
	case "chart-type":
		if value != "bar" && value != "hex" {
			return true, usagef("--chart-type %q: want bar or hex", value)
		}
		f.display.chartType = value
	case "chart-scale":
		if value != "off" && value != "auto" {
			return true, usagef("--chart-scale %q: want off or auto", value)
		}
		f.display.chartScale = value
	case "influx-url":
		f.influx.url = value
	case "influx-token":
		f.influx.token = value
	case "influx-org":
		f.influx.org = value
	case "influx-bucket":
		f.influx.bucket = value
	default:
		return false, nil
	}
	return true, nil
}

// unknownFlag refuses a flag crank does not have, naming the one it resembles among those crank's
// help lists.
func unknownFlag(name string) error {
	if near := suggest.Near(name, helpFlags()); near != "" {
		return usagef("unknown flag --%s (did you mean --%s? see crank --help)", name, near)
	}
	return usagef("unknown flag --%s (see crank --help)", name)
}

// helpFlags are the flags the help text names, once each.
func helpFlags() []string {
	var out []string
	for _, m := range helpFlag.FindAllStringSubmatch(usage, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

var helpFlag = regexp.MustCompile(`--([a-z][a-z0-9-]*[a-z0-9])`)

const usage = `crank runs benchmark scenarios on agents.

Usage:
  crank --config FILE --scenario NAME [options]      run a scenario
  crank sweep --matrix KEY=V1,V2 [run options]       run variants in interleaved rounds and compare them
  crank capacity --slo EXPR [run options]            the highest rate that meets the SLO (crank capacity -h)
  crank bisect --good REV --bad REV [run options]    the commit that changed a figure (crank bisect -h)
  crank compare BASE.json HEAD.json [...]            compare results; exit 1 regressed, 3 inconclusive
  crank compare --base REF --head REF [run options] measure both side by side and judge (crank compare --base x -h)
  crank regressions --history DIR                    find change points in a history of results
  crank load URL [options]                           the built-in HTTP load generator
  crank push                                         upload spooled results to InfluxDB
  crank report RESULTS.json [MORE.json...] -o FILE   one self-contained HTML page to share: summary, charts, tables, comparison
  crank version

Run options (crank's names):
  --config FILE            scenario file (repeatable; later files merge over earlier)
  --scenario NAME          scenario to run
  --profile NAME           profile to apply (repeatable)
  --variable name=value    set a variable for every job (repeatable)
  --<service>.<path> VAL   override a job key, e.g. --load.variables.connections 64,
                           --application.environmentVariables GOGC=off, --load.job bombardier
  --json FILE              write the results as JSON ("-" for stdout; the tables then go to stderr)
  --iterations auto        repeat until the 95 % confidence interval of the load's mean requests/s is
                           within --precision (default 2%) of it, at most --max-iterations (default 20)
  --iterations N           run N times; results are the means, each iteration kept under iterations,
                           mean/stdev/CV/min/max under spread; the table shows mean ± CV
  --exclude LOW[:HIGH]     with --iterations, leave out the LOW lowest and HIGH highest iterations...
  --exclude-order S:R      ...ordered by service S's result R, e.g. load:http/rps/mean
  --repeat SERVICE         with --iterations or --span, restart SERVICE and the ones after it each
                           iteration; the services before it keep running (default: the last one)
  --span DURATION          repeat the run until DURATION (HH:mm:ss or 90s) has passed
  --threshold EXPR         fail the run (exit 99) unless [service:]metric OP number holds, e.g.
                           'load:http/latency/99<5' (repeatable; also thresholds: in the scenario)
  --no-probe               never check an underloaded verdict with a short run at twice the connections
                           (the probe, which tells a serialized server from a light load)
  --probe                  run the probe whatever the verdict (by default it runs only when it can
                           change the verdict: docs/MEASUREMENTS.md)
  --max-error-rate SHARE   fail the run (exit 1) when more than SHARE of requests fail (default 1%; off)
  --description TEXT       a description stored with the results
  --property name=value    a property stored with the results (repeatable)
  --dry-run FILE           write the resolved scenario as JSON ("-" for stdout) and run nothing
  --compare FILE           compare the results with FILE right after the run (exit 1 on regression;
                           repeatable: each FILE in turn)
  --agent-token TOKEN      the agents' token, which signs crank's requests (or CRANK_AGENT_TOKEN; a command
                           line is visible in ps); not for agents only fetched configurations name
  --agent-token-file FILE  read the agents' tokens from this file: a line TOKEN, and lines
                           URL [URL...] TOKEN scoping a token to those agents
  --agent-token-for URL    let the unscoped token sign for this agent too, although only a configuration
                           fetched from a URL names it (repeatable, or URL,URL...)
  --import-map URL=DIR     read configurations and imports under the URL prefix URL from the local folder
                           DIR, a checkout (repeatable; or CRANK_IMPORT_MAP, mappings separated by spaces), e.g.
                           https://raw.githubusercontent.com/dotnet/crank/main/=$HOME/src/crank
  --agent-ca FILE          PEM CA certificate(s) that signed the agents' TLS certificates (or CRANK_AGENT_CA)
  --session ID             session id recorded with the results (default: generated)
  --influx-url/--influx-token/--influx-org/--influx-bucket   push results to InfluxDB (or CRANK_INFLUX_*)
  --output-dir DIR         keep each job's build log and output there (SERVICE.build.log, SERVICE.output.log)
  --quiet                  show only the results: no progress (a job's displayOutput still shows)
  --chart                  add a chart of each measurement's samples over time to the tables
  --chart-type bar|hex     the chart's characters (default bar)
  --chart-scale off|auto   off (default): the chart starts at 0; auto: at the lowest value
  --script NAME            run the configuration's scripts.NAME once the results exist (repeatable)
  --variable-json name=JSON a typed variable: a number, list or object (repeatable)
  --csv FILE               append the results as one CSV row (headers written when FILE is new;
                           a FILE whose header has other columns is refused)
  --no-measurements        leave the samples out of the JSON (results only)
  --no-metadata            leave the metadata out of the JSON
  --command-line-property  record this command line (minus output and secret options) as property command-line
  --interval SECONDS       sampling interval of every job (crank's -m)
  --job NAME               run the job NAME (from the files, or defined by --NAME.<key> options) instead of a scenario (repeatable)
  --strict                 keys nobody knows and variables nothing reads are errors (by default
                           warnings: crank ignores them)
  -v, --verbose            print each service's rendered command lines, and debug logs
Flag names ignore case. crank's short names: -c config, -s scenario, -p property, -i iterations,
-j json, -m interval, -d debug (= --dry-run), -x exclude, -xo exclude-order, -v verbose; crank's
old -o and --output are --json. --sql, --table, --es, --index, --relay and --auto-flush are
refused: publish to InfluxDB (--influx-url); so are the Azure sign-in options (--cert-*, --mi-client-id).

Exit status: 0 the run passed; 1 the run failed (a job failed, more failed requests than
--max-error-rate, or --compare found a regression); 2 bad input (flags, configuration, values);
99 a threshold was not met; 130 interrupted (Ctrl-C or SIGTERM: every job is stopped, then what
was measured is printed and written: the finished iterations, or the unfinished one's partial
results, marked).
`
