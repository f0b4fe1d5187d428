package config

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/api"
)

// dryService is one service in the --dry-run JSON; the optional keys appear only when set.
type dryService struct {
	Job                  string            `json:"job"`
	Executable           string            `json:"executable"`
	Arguments            string            `json:"arguments"`
	WarmupArguments      string            `json:"warmupArguments,omitempty"`
	BuildCommand         string            `json:"buildCommand,omitempty"`
	User                 string            `json:"user,omitempty"`
	Port                 int               `json:"port,omitempty"`
	ReadyStateText       string            `json:"readyStateText,omitempty"`
	WaitForExit          bool              `json:"waitForExit,omitempty"`
	Timeout              api.Duration      `json:"timeout,omitempty"`
	Source               *api.Source       `json:"source,omitempty"`
	Dotnet               *api.Dotnet       `json:"dotnet,omitempty"`
	Sources              []api.NamedSource `json:"sources,omitempty"`
	BuildFiles           []string          `json:"buildFiles,omitempty"`
	Parser               string            `json:"parser,omitempty"`
	MetricsPort          int               `json:"metricsPort,omitempty"`
	MetricsURL           string            `json:"metricsUrl,omitempty"`
	Counters             []api.CounterSpec `json:"counters,omitempty"`
	CpuSet               string            `json:"cpuSet,omitempty"`
	Variables            map[string]any    `json:"variables"`
	EnvironmentVariables map[string]string `json:"environmentVariables"`
	Endpoints            []string          `json:"endpoints"`
	// Shares are a split load's parts, one per endpoint (DISTRIBUTED.md).
	Shares []dryShare `json:"shares,omitempty"`
}

// dryShare is one endpoint's part of a split load: its share and its command line.
type dryShare struct {
	Endpoint  string         `json:"endpoint"`
	Weight    float64        `json:"weight"`
	Variables map[string]int `json:"variables"`
	Arguments string         `json:"arguments"`
}

// DryRun is what `crank --dry-run` prints: the scenario and, per service in scenario order, the
// rendered job, its variables, environment and endpoints, as indented JSON (no final newline, as
// json.MarshalIndent).
func (r *Resolved) DryRun() ([]byte, error) {
	var b bytes.Buffer
	name, err := marshal(r.Scenario)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, `{"scenario":%s,"services":{`, name)
	for i, s := range r.Services {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := marshal(s.Name)
		if err != nil {
			return nil, err
		}
		val, err := marshal(dryServiceOf(s))
		if err != nil {
			return nil, fmt.Errorf("service %q: %w", s.Name, err)
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteString("}}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func dryServiceOf(s Service) dryService {
	j := s.Job
	d := dryService{
		Job: j.Name, Executable: j.Executable, Arguments: j.Arguments, WarmupArguments: j.WarmupArguments,
		BuildCommand: j.BuildCommand, User: j.User, Port: j.Port, ReadyStateText: j.ReadyStateText,
		WaitForExit: j.WaitForExit, Timeout: j.Timeout, Source: j.Source, Dotnet: j.Dotnet, Sources: j.Sources, BuildFiles: j.BuildFiles, Parser: j.Parser,
		MetricsPort: j.MetricsPort, MetricsURL: j.MetricsURL, Counters: j.Counters,
		Variables: j.Variables, EnvironmentVariables: j.Environment, Endpoints: s.Endpoints,
	}
	d.CpuSet = j.CpuSet
	for _, sh := range s.Shares {
		d.Shares = append(d.Shares, dryShare{Endpoint: sh.Endpoint, Weight: sh.Weight, Variables: sh.Variables, Arguments: sh.Job.Arguments})
	}
	if d.Variables == nil {
		d.Variables = map[string]any{}
	}
	if d.EnvironmentVariables == nil {
		d.EnvironmentVariables = map[string]string{}
	}
	if d.Endpoints == nil {
		d.Endpoints = []string{}
	}
	return d
}

// marshal is json.Marshal without HTML escaping, so arguments such as `a && b` read as written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
