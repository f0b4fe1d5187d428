package agent

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/dotnet"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// dotnetInfo is what this agent has of .NET: its SDKs and runtimes, or why none; and the binary.
func (a *Agent) dotnetInfo(ctx context.Context) (string, api.DotnetInfo) {
	bin, err := dotnet.Find(a.opts.DotnetRoot)
	if err != nil {
		return "", api.DotnetInfo{Missing: err.Error()}
	}
	return bin, dotnet.List(ctx, bin)
}

// dotnetJob turns a .NET job (crank's source.project) into the build command and command line of
// this agent's SDK (dotnet publish, then the published app), or refuses it naming what this agent
// lacks. It also returns the SDK chosen, which keys the build cache, and the environment the
// agent adds to the job's own (the CLI's opt-outs, ASPNETCORE_URLS from the job's serverPort):
// kept out of the job's environment so that it does not key the build (a new port reuses it). A
// job for another platform (skipped here) is left as it is.
func (a *Agent) dotnetJob(ctx context.Context, spec api.Job) (api.Job, string, map[string]string, error) {
	if spec.Dotnet == nil || platformMismatch(spec.Options) != "" {
		return spec, "", nil, nil
	}
	bin, info := a.dotnetInfo(ctx)
	plan, err := dotnet.Prepare(bin, info, *spec.Dotnet, spec.BuildArguments, spec.Arguments, runtime.GOARCH)
	if err != nil {
		return spec, "", nil, badRequest("job %q: %v", spec.Name, err)
	}
	spec.BuildCommand = strings.TrimSuffix(plan.BuildCommand+" && "+spec.BuildCommand, " && ")
	if spec.Executable == "" {
		spec.Executable, spec.Arguments = plan.Executable, plan.Arguments
	}
	env := map[string]string{"DOTNET_CLI_TELEMETRY_OPTOUT": "1", "DOTNET_NOLOGO": "1"}
	if url := aspnetURL(spec.Variables); url != "" {
		env["ASPNETCORE_URLS"] = url
	}
	if spec.Collect { // perf names JIT-compiled frames from the runtime's /tmp/perf-PID.map
		env[PerfMapEnv] = "1"
	}
	for k := range spec.Environment { // the job's own win
		delete(env, k)
	}
	return spec, "dotnet-sdk " + plan.SDK, env, nil
}

// PerfMapEnv switches on the .NET runtime's perf map (/tmp/perf-PID.map, the JIT's code addresses
// and method names), which perf reads to name frames that have no ELF symbols; the agent sets it
// for a .NET job that collects (crank's PerfCollect does the same). A Docker job's map is written
// in the container's /tmp, where the host's perf does not look: its JIT frames stay unnamed.
const PerfMapEnv = "DOTNET_PerfMapEnabled"

// aspnetURL is the URL an ASP.NET Core app listens on, from the job's serverPort (crank's
// scenarios' variables serverScheme, serverAddress, serverPort), or "" without a port.
func aspnetURL(vars map[string]any) string {
	port := str(vars["serverPort"])
	if port == "" {
		return ""
	}
	scheme, host := str(vars["serverScheme"]), str(vars["serverAddress"])
	if scheme == "" {
		scheme = "http"
	}
	if host == "" {
		host = "*"
	}
	return scheme + "://" + host + ":" + port
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	if f, ok := api.Number(v); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return ""
}

// recordPublished records the size of a .NET job's published folder (crank's
// benchmarks/published-size, KB), built or restored from the cache.
func (j *job) recordPublished() {
	if j.spec.Dotnet == nil {
		return
	}
	var size int64
	err := filepath.WalkDir(filepath.Join(j.dir, dotnet.Output), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	if err != nil {
		j.warn(fmt.Sprintf("%s is not measured: %v", measure.PublishedSize, err))
		return
	}
	j.record(api.Measurement{Name: measure.PublishedSize, Timestamp: time.Now(), Value: float64(size) / 1024})
}
