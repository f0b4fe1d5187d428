package dotnet

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Output is the folder, inside the job's, the project is published to (crank's "published").
const Output = "published"

// Plan is what the agent runs for a .NET job.
type Plan struct {
	// SDK is the version chosen among the installed ones: part of the build cache's key.
	SDK string
	// BuildCommand publishes the project (sh -c, in the job's folder).
	BuildCommand string
	// Executable and Arguments run what was published: `dotnet published/NAME.dll ARGS`, or the
	// apphost `published/NAME ARGS` when self-contained.
	Executable, Arguments string
}

// Prepare chooses the SDK d asks for among info's (the newest for latest, current, edge or no
// version) and makes the plan. bin is the dotnet binary, buildArgs crank's buildArguments (added to
// the publish command as written), args the job's arguments, goarch the agent's architecture.
func Prepare(bin string, info api.DotnetInfo, d api.Dotnet, buildArgs []string, args, goarch string) (Plan, error) {
	if lacks := info.Lacks(d); lacks != "" {
		return Plan{}, errors.New("this agent lacks " + lacks)
	}
	project := strings.TrimPrefix(path.Clean(strings.ReplaceAll(d.Project, "\\", "/")), "./")
	if project == "." || strings.HasPrefix(project, "../") || path.IsAbs(project) {
		return Plan{}, fmt.Errorf("source.project %q: want a path inside the job's source", d.Project)
	}
	sdk := choose(info.SDKs, d.SdkVersion)
	framework := d.Framework
	if framework == "" {
		framework = "net" + majorMinor(sdk)
	}
	cmd := []string{quote(bin), "publish", quote(project), "-c", "Release", "-o", Output, "--framework", quote(framework)}
	if v := d.RuntimeVersion; !api.FloatingVersion(v) {
		cmd = append(cmd, quote("-p:RuntimeFrameworkVersion="+v))
	}
	cmd = append(cmd, buildArgs...)
	name := strings.TrimSuffix(path.Base(project), path.Ext(project))
	p := Plan{SDK: sdk, Executable: bin, Arguments: strings.TrimSpace(quote(Output+"/"+name+".dll") + " " + args)}
	if d.SelfContained {
		cmd = append(cmd, "--self-contained", "-r", "linux-"+rid(goarch))
		p.Executable, p.Arguments = "./"+Output+"/"+name, args
	}
	p.BuildCommand = strings.Join(cmd, " ")
	return p, nil
}

// choose is the newest installed SDK matching want (all of them for a floating version).
func choose(sdks []string, want string) string {
	best := ""
	for _, v := range sdks { // oldest first
		if api.FloatingVersion(want) || api.VersionMatches(v, want) {
			best = v
		}
	}
	return best
}

// majorMinor is "8.0" of "8.0.404".
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// rid is .NET's name for the architecture in runtime identifiers.
func rid(goarch string) string {
	switch goarch {
	case "amd64":
		return "x64"
	case "386":
		return "x86"
	}
	return goarch // arm64, arm
}

// quote makes s one shell word.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:+,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
