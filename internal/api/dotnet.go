package api

import (
	"fmt"
	"slices"
	"strings"
)

// Dotnet is crank's .NET build of a job (source.project): the agent publishes the project with a
// .NET SDK it has and runs what that makes. The versions are crank's job keys, as written
// ("latest", "current", "edge" or a version); empty asks for nothing in particular.
type Dotnet struct {
	Project           string `json:"project"`
	Framework         string `json:"framework,omitempty"`
	SdkVersion        string `json:"sdkVersion,omitempty"`
	RuntimeVersion    string `json:"runtimeVersion,omitempty"`
	AspNetCoreVersion string `json:"aspNetCoreVersion,omitempty"`
	Channel           string `json:"channel,omitempty"`
	SelfContained     bool   `json:"selfContained,omitempty"`
	// BenchmarkDotNet is crank's options.benchmarkDotNet: the project is a BenchmarkDotNet suite
	// whose results crank reads. No agent of this platform runs one yet: every agent lacks it.
	BenchmarkDotNet bool `json:"benchmarkDotNet,omitempty"`
}

// DotnetInfo is what an agent can build and run of .NET: its SDKs and shared runtimes as `dotnet
// --list-sdks` and `--list-runtimes` list them, or why it has none.
type DotnetInfo struct {
	SDKs []string `json:"sdks,omitempty"`
	// Runtimes by name ("Microsoft.NETCore.App", "Microsoft.AspNetCore.App"): their versions.
	Runtimes map[string][]string `json:"runtimes,omitempty"`
	// Missing says why the agent has no SDK ("dotnet is not on the agent's PATH").
	Missing string `json:"missing,omitempty"`
}

// Lacks says what of d this agent lacks to build and run it ("" when nothing): no SDK at all, or a
// version that is not installed.
func (i DotnetInfo) Lacks(d Dotnet) string {
	if len(i.SDKs) == 0 {
		why := i.Missing
		if why == "" {
			why = "no .NET SDK is installed"
		}
		return "a .NET SDK to build " + d.Project + " (" + why + ")"
	}
	var missing []string
	if d.BenchmarkDotNet {
		missing = append(missing, "a BenchmarkDotNet runner (options.benchmarkDotNet: this platform builds and runs .NET apps, not BenchmarkDotNet suites)")
	}
	if v := d.SdkVersion; !FloatingVersion(v) && !hasVersion(i.SDKs, v) {
		missing = append(missing, fmt.Sprintf(".NET SDK %s (it has %s)", v, strings.Join(i.SDKs, ", ")))
	}
	for name, v := range map[string]string{"Microsoft.NETCore.App": d.RuntimeVersion, "Microsoft.AspNetCore.App": d.AspNetCoreVersion} {
		if !FloatingVersion(v) && !hasVersion(i.Runtimes[name], v) {
			missing = append(missing, fmt.Sprintf("%s %s (it has %s)", name, v, orNone(i.Runtimes[name])))
		}
	}
	slices.Sort(missing)
	return strings.Join(missing, "; ")
}

// FloatingVersion tells a version that asks for the newest installed (latest, current, edge, or
// none): the agent installs nothing.
func FloatingVersion(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "latest", "current", "edge":
		return true
	}
	return false
}

// VersionMatches tells whether the installed version have is the one asked for: the same, or
// under it as under a channel ("8.0" matches 8.0.11).
func VersionMatches(have, want string) bool {
	return have == want || strings.HasPrefix(have, strings.TrimSuffix(want, ".")+".")
}

func hasVersion(installed []string, v string) bool {
	return slices.ContainsFunc(installed, func(have string) bool { return VersionMatches(have, v) })
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
