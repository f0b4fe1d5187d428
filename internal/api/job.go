// Package api holds the wire types shared by the controller and the agent, and the agent's HTTP
// client. It has no server code, so the controller, the agent and tests can all depend on it.
package api

import (
	"encoding/json"
	"fmt"
	"time"
)

// StartAtEnv is the environment variable that carries Job.StartAt to a load job's measured run
// (RFC 3339 with nanoseconds).
const StartAtEnv = "CRANK_LOAD_START_AT"

// Job is a fully resolved job as the agent receives it: every string is already rendered.
type Job struct {
	// Service is the scenario's name for this job ("application", "load").
	Service string `json:"service"`
	// Name is the base job it came from ("wrk", "plaintext").
	Name string `json:"job"`
	// Source, when set, is uploaded (LocalFolder) or cloned (Repository) into the job's folder.
	Source *Source `json:"source,omitempty"`
	// Sources are crank's named sources, each placed in a folder of its own inside the job's
	// folder (beside Source, in name order).
	Sources []NamedSource `json:"sources,omitempty"`
	// BuildFiles are crank's buildFiles ("path[;folder]": a local file, glob or http(s) URL), kept
	// for the record: the controller sends the files (PUT /jobs/{id}/buildfiles) and the agent
	// copies them into the job's folder after its sources, before the build.
	BuildFiles []string `json:"buildFiles,omitempty"`
	// BuildCommand runs with sh -c in the job's folder before the executable starts.
	BuildCommand string `json:"buildCommand,omitempty"`
	// User, when set, is the system account the build command and the processes run as (a
	// database server that refuses root). The agent gives the job folder to it first. Only an
	// agent running as root, or as that very user, accepts it.
	User string `json:"user,omitempty"`
	// Executable is a path inside the job folder ("./app") or a program name looked up next to the
	// agent's own binary and then on PATH ("wrk").
	Executable string `json:"executable"`
	Arguments  string `json:"arguments,omitempty"`
	// WarmupArguments, when not empty, run the executable once before the measured run (a load
	// generator's warm-up). Its output is kept but not parsed, and samples taken then are marked Warmup.
	WarmupArguments string            `json:"warmupArguments,omitempty"`
	Environment     map[string]string `json:"environmentVariables,omitempty"`
	// ReadyStateText marks the job ready when it shows in the output. When empty and Port is set,
	// the job is ready when Port accepts TCP connections; when both are empty it is ready at once.
	ReadyStateText string `json:"readyStateText,omitempty"`
	Port           int    `json:"port,omitempty"`
	// WaitForExit jobs (load generators) run to completion; the others run until stopped.
	WaitForExit  bool     `json:"waitForExit,omitempty"`
	StartTimeout Duration `json:"startTimeout,omitempty"`
	// Timeout bounds a WaitForExit job's run (0: no bound beyond the lease).
	Timeout Duration `json:"timeout,omitempty"`
	// Parser names the driver that turns this job's output into measurements ("wrk").
	Parser string `json:"parser,omitempty"`
	// Interval between samples of CPU, memory and counters (default 1 s).
	Interval Duration `json:"interval,omitempty"`
	// Warmup is the length of the warm-up at the start of the run: samples taken then are marked.
	Warmup Duration `json:"warmup,omitempty"`
	// StartAt, for a load job, is when its measured window is to begin, on the agent's clock: the
	// agent gives it to the measured run (not the warm-up run) as StartAtEnv, and a generator
	// that reads it (crank load) waits for it, so that generators on several agents measure one
	// window (docs/DISTRIBUTED.md).
	StartAt *time.Time `json:"startAt,omitempty"`
	// MetricsURL or MetricsPort: the job's Prometheus endpoint, scraped every Interval.
	MetricsURL  string        `json:"metricsUrl,omitempty"`
	MetricsPort int           `json:"metricsPort,omitempty"`
	Counters    []CounterSpec `json:"counters,omitempty"`
	Options     Options       `json:"options,omitempty"`
	CpuSet      string        `json:"cpuSet,omitempty"`
	// BuildArguments are a Docker job's build arguments ("NAME=value"), as docker build --build-arg.
	BuildArguments []string `json:"buildArguments,omitempty"`
	// NoClean is crank's key; a Docker job's image is always kept in the agent's bounded image cache.
	NoClean bool `json:"noClean,omitempty"`
	// MemoryLimitInBytes and CPULimitRatio (cores) cap the job: a Docker job's container, a
	// process job's control group where the agent has the controller (else a warning).
	MemoryLimitInBytes uint64  `json:"memoryLimitInBytes,omitempty"`
	CPULimitRatio      float64 `json:"cpuLimitRatio,omitempty"`
	// Collect is crank's collect: the agent records the job's processes with perf over the
	// measured window (the controller opens and closes it: POST /jobs/{id}/profiles/start, stop).
	// CollectArguments tune it ("frequency=N;callGraph=fp|dwarf").
	Collect          bool   `json:"collect,omitempty"`
	CollectArguments string `json:"collectArguments,omitempty"`
	// GoProfiles (ours) reads the job's Go profiles over the measured window from its
	// /debug/pprof/ on loopback at MetricsPort, else Port: CPU, and mutex and block as deltas.
	GoProfiles bool `json:"goProfiles,omitempty"`
	// Dotnet, when set, is crank's .NET build (source.project) of the job's source.
	Dotnet *Dotnet `json:"dotnet,omitempty"`
	// Variables are the job's resolved variables, kept for the record.
	Variables map[string]any `json:"variables,omitempty"`
}

// Source says where a job's files come from.
type Source struct {
	LocalFolder    string `json:"localFolder,omitempty"`
	Repository     string `json:"repository,omitempty"`
	BranchOrCommit string `json:"branchOrCommit,omitempty"`
	// Hash identifies the uploaded content; the agent reuses a build whose hash and build command match.
	Hash string `json:"hash,omitempty"`
	// A Docker job: the Dockerfile (in the source) built with DockerContextDirectory as context
	// (default: the Dockerfile's folder), tagged benchmarks_<DockerImageName>; or an image loaded
	// from a tarball in the source (DockerLoad, run as DockerImageName), or one pulled
	// (DockerPull). DockerCommand replaces the image's command.
	DockerFile             string `json:"dockerFile,omitempty"`
	DockerImageName        string `json:"dockerImageName,omitempty"`
	DockerContextDirectory string `json:"dockerContextDirectory,omitempty"`
	DockerLoad             string `json:"dockerLoad,omitempty"`
	DockerPull             string `json:"dockerPull,omitempty"`
	DockerCommand          string `json:"dockerCommand,omitempty"`
}

// Options are job settings that are not about the process itself.
type Options struct {
	RequiredArchitecture    string `json:"requiredArchitecture,omitempty"`
	RequiredOperatingSystem string `json:"requiredOperatingSystem,omitempty"`
	// DisplayOutput and DisplayBuild, read by the controller: print the job's output (its build
	// log) as it comes, each line prefixed with the service's name.
	DisplayOutput bool `json:"displayOutput,omitempty"`
	DisplayBuild  bool `json:"displayBuild,omitempty"`
}

// CounterSpec maps one Prometheus metric to a measurement.
type CounterSpec struct {
	Metric      string `json:"metric"`
	Measurement string `json:"measurement"`
	// Read is "rate" (per second of a counter), "gauge", or "quantile" (of a histogram).
	Read     string  `json:"read"`
	Quantile float64 `json:"quantile,omitempty"`
	// Scale multiplies the value (1000 turns seconds into milliseconds).
	Scale float64 `json:"scale,omitempty"`
}

// Duration is a time.Duration that reads and writes JSON as seconds (a number) or a Go duration string.
type Duration time.Duration

// MarshalJSON writes the duration as seconds.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).Seconds())
}

// UnmarshalJSON reads seconds (number) or a duration string such as "1500ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case float64:
		*d = Duration(x * float64(time.Second))
	case string:
		p, err := time.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("duration %q: %w", x, err)
		}
		*d = Duration(p)
	default:
		return fmt.Errorf("duration: want seconds or a string, got %s", b)
	}
	return nil
}

// Std returns the standard library duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// InContainer reports whether the job runs in a container: it names a Dockerfile, an image, or
// an image to pull or load (crank's rule); otherwise its executable runs as a process.
func (j Job) InContainer() bool {
	s := j.Source
	return s != nil && (s.DockerFile != "" || s.DockerImageName != "" || s.DockerPull != "" || s.DockerLoad != "")
}
