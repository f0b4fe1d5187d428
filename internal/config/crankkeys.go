package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/suggest"
)

// Keys this decoder reads, by place, in their canonical spelling. crank matches keys ignoring
// case, so a key is first mapped to its canonical spelling (canonical).
var (
	jobKeys = []string{"endpoints", "weights", "executable", "arguments", "warmupArguments", "buildCommand", "readyStateText",
		"parser", "metricsUrl", "user", "environmentVariables", "port", "metricsPort", "waitForExit", "startTimeout",
		"timeout", "interval", "warmup", "source", "options", "counters", "onConfigure", "isConsoleApp",
		"measurementsIntervalSec", "variables", "job", "agent", "cpuSet",
		"buildArguments", "noClean", "memoryLimitInBytes", "cpuLimitRatio", "sources", "buildFiles",
		"dockerFile", "dockerImageName", "dockerContextDirectory", "dockerLoad", "dockerPull", "dockerCommand", "project",
		"collect", "collectArguments", "goProfiles"}
	sourceKeys = []string{"localFolder", "repository", "branchOrCommit", "project", "sourceKey", "noBuild", "cacheOnAgent", "destinationFolder",
		"dockerFile", "dockerImageName", "dockerContextDirectory", "dockerLoad", "dockerPull", "dockerCommand"}
	// namedSourceKeys are the keys of one entry under sources:.
	namedSourceKeys = []string{"localFolder", "repository", "branchOrCommit", "destinationFolder", "sourceKey", "noBuild", "cacheOnAgent"}
	optionsKeys     = []string{"requiredArchitecture", "requiredOperatingSystem", "reuseBuild", "reuseSource", "displayOutput", "displayBuild", "buildFiles", "benchmarkDotNet"}
)

// canonical returns the spelling of key in known, matched ignoring case ("" when unknown).
func canonical(key string, known []string) string {
	for _, k := range known {
		if k == key {
			return k
		}
	}
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	return ""
}

// refusal is a key crank knows that this platform does not carry out, with what to do instead.
// whenSet: refused only with a value that asks for something (true, a non-empty string or list);
// false, 0 or empty ask for nothing and are accepted.
type refusal struct {
	hint    string
	whenSet bool
}

const (
	hintFetch = "copying files out of the container is not available; write what you need to the job's output"
	hintNamed = "crank reads it on the job (or its source:), not on a named source; give it there"
	hintDiag  = ".NET diagnostics need the .NET runtime; expose Prometheus metrics (metricsPort, counters) for runtime counters"
	// hintDotnetDiag answers crank's .NET-only traces and dumps, naming what works instead.
	hintDotnetDiag = "it is .NET-only (dotnet-trace, dumps); collect: true records the job's CPU with perf, and goProfiles reads a Go app's profiles (docs/PROFILES.md)"
	hintStartup    = "collect records the load's measured window only, not the start-up"
	hintFiles      = "file transfer to and from the agent is not available beyond sources and buildFiles; put the files in the job's source"
	hintScripts    = "agent-side shell scripts are not available; use buildCommand, or a wrapper script as the executable"
	hintDotnetKey  = "it applies to crank's .NET builds only"
)

// crankRefusals are crank's job keys (top level) this platform refuses. A key that becomes
// carried out moves from here to jobKeys (or sourceKeys, optionsKeys) and the decoder's switch:
// only keys in those lists reach the switch.
var crankRefusals = map[string]refusal{
	"dockerFetchPath": {hintFetch, true},
	"dotnetTrace":     {hintDotnetDiag, true}, "dotnetTraceProviders": {hintDotnetDiag, true},
	"collectStartup": {hintStartup, true}, "collectCounters": {hintDiag, true},
	"counterProviders": {hintDiag, true}, "dumpProcess": {hintDotnetDiag, true}, "dumpType": {hintDotnetDiag, true},
	"profile": {hintDotnetDiag, true}, "collectDependencies": {hintDiag, true}, "additionalProcesses": {hintProcesses, true},
	"beforeScript": {hintScripts, true}, "initScript": {hintScripts, true}, "afterScript": {hintScripts, true},
	"stoppingScript": {hintScripts, true}, "beforeJob": {hintScripts, true}, "afterJob": {hintScripts, true},
	"outputFiles": {hintFiles, true}, "buildArchives": {hintFiles, true},
	"outputArchives": {hintFiles, true}, "downloadFiles": {hintFiles, true},
	"noArguments": {"write the arguments you want in arguments", true},
	"features":    {"crank's agent features are not available", true},
}

// crankOptionRefusals are crank's options.* keys this platform refuses.
var crankOptionRefusals = map[string]refusal{
	"collectCounters": {hintDiag, true}, "counterProviders": {hintDiag, true},
	"dumpType": {hintDotnetDiag, true}, "dumpOutput": {hintDotnetDiag, true}, "traceOutput": {hintDotnetDiag, true},
	"outputFiles": {hintFiles, true}, "buildArchives": {hintFiles, true},
	"outputArchives": {hintFiles, true}, "downloadFiles": {hintFiles, true}, "downloadFilesOutput": {hintFiles, true},
	"downloadOutput": {hintFiles, true}, "downloadOutputOutput": {hintFiles, true}, "downloadBuildLog": {hintFiles, true},
	"downloadBuildLogOutput": {hintFiles, true}, "fetch": {hintFiles, true}, "fetchOutput": {hintFiles, true},
	"noGitIgnore":    {"uploads always leave out what .gitignore lists; remove the entries from .gitignore", true},
	"discardResults": {"leave the service's results out when you read them", true},
}

// crankSourceRefusals are crank's source.* keys this platform refuses.
var crankSourceRefusals = map[string]refusal{
	"dockerFetchPath": {hintFetch, true},
	"initSubmodules":  {hintSubmodules, true},
	"sourceCode":      {"give the source as localFolder or repository", true},
}

const hintSubmodules = "clones never fetch submodules; vendor them in the repository, or name each one under sources"

// crankNamedSourceRefusals are keys of crank's source model that a named source (sources.<name>)
// does not use in crank either, or that are not carried out.
var crankNamedSourceRefusals = map[string]refusal{
	"initSubmodules": {hintSubmodules, true}, "sourceCode": {"give the source as localFolder or repository", true},
	"project": {hintNamed, true}, "dockerFile": {hintNamed, true}, "dockerImageName": {hintNamed, true},
	"dockerContextDirectory": {hintNamed, true}, "dockerLoad": {hintNamed, true}, "dockerPull": {hintNamed, true},
	"dockerCommand": {hintNamed, true}, "dockerFetchPath": {hintNamed, true},
}

// dotnetKeys are crank's keys for its .NET builds (source.project), meaningless without one.
var dotnetKeys = []string{"framework", "channel", "runtimeVersion", "aspNetCoreVersion", "sdkVersion", "desktopVersion",
	"noGlobalJson", "selfContained", "useMonoRuntime", "useRuntimeStore", "packageReferences", "patchReferences",
	"startupMainMethod", "buildTimeout", "collectTimeout", "webHost"}

// hintProcesses answers crank's additionalProcesses (processes to sample beside the job's).
const hintProcesses = "the agent samples the job's process tree (and its control group); start the other processes from the job, or run them as their own service"

// diagTuningKeys tune crank's .NET diagnostics (dotnetTrace, profile) and its .NET collect, refused or not applied here:
// alone they ask for nothing.
var diagTuningKeys = []string{"profileType", "profileArguments", "dotNetTraceBufferSizeMB", "dotNetTraceRequestRundown",
	"dotNetTraceCollectMode", "dotNetTraceStopTimeoutSec", "collectSwapMemory"}

// legacyKeys are fields of crank's job model from before variables; crank no longer reads them.
var legacyKeys = []string{"scheme", "path", "connections", "threads"}

// lookupRefusal finds key (ignoring case) in a refusal table.
func lookupRefusal(table map[string]refusal, key string) (string, refusal, bool) {
	for k, r := range table {
		if strings.EqualFold(k, key) {
			return k, r, true
		}
	}
	return "", refusal{}, false
}

// asksForSomething tells whether a value asks for a feature: true, a non-zero number, a
// non-empty string, list or mapping.
func asksForSomething(n *node) bool {
	switch {
	case n.isNull():
		return false
	case n.isMap():
		return len(n.pairs) > 0
	case n.isList():
		return len(n.items) > 0
	}
	switch x := n.value.(type) {
	case bool:
		return x
	case int:
		return x != 0
	case float64:
		return x != 0
	case string:
		s := strings.TrimSpace(strings.ToLower(x))
		return s != "" && s != "false" && s != "0"
	}
	return true
}

// didYouMean returns ` (did you mean "x"?)` for the known key closest to key, or "".
func didYouMean(key string, known ...[]string) string {
	best := suggest.Closest(key, slices.Concat(known...), 2)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func refusalKeys(t map[string]refusal) []string {
	out := make([]string, 0, len(t))
	for k := range t {
		out = append(out, k)
	}
	return out
}
