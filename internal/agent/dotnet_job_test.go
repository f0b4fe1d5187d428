package agent

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/agent/dotnet/dotnettest"
	"github.com/crankshaft/crankshaft/internal/api"
)

// TestDotnetInfoAndRefusal: the agent lists the SDKs of its dotnet in /info; a .NET job asking for
// an SDK it lacks is refused at submission (400) naming what is missing, as is any .NET job on an
// agent without dotnet.
func TestDotnetInfoAndRefusal(t *testing.T) {
	ctx := context.Background()
	with := newTestAgent(t, Options{DotnetRoot: dotnettest.Standin(t)})
	info, err := with.c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(info.Dotnet.SDKs, ","); got != "8.0.404,9.0.101" || info.Dotnet.Missing != "" {
		t.Fatalf("/info dotnet %+v", info.Dotnet)
	}
	job := api.Job{Name: "app", Dotnet: &api.Dotnet{Project: "src/App/App.csproj", SdkVersion: "10.0.100"}}
	_, err = with.c.Submit(ctx, job)
	var ae *api.AgentError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), ".NET SDK 10.0.100 (it has 8.0.404, 9.0.101)") {
		t.Errorf("SDK 10.0.100: %v, want 400 naming the versions", err)
	}
	without := newTestAgent(t, Options{DotnetRoot: t.TempDir()})
	job.Dotnet.SdkVersion = ""
	if _, err := without.c.Submit(ctx, job); err == nil || !strings.Contains(err.Error(), "lacks a .NET SDK to build src/App/App.csproj (no dotnet in --dotnet-root") {
		t.Errorf("no SDK: %v", err)
	}
}

// TestDotnetPerfMapWhenCollecting: a .NET job that collects gets the runtime's perf map switched
// on, so perf can name its JIT-compiled frames; one that does not collect, or sets the variable
// itself, is left as it is (issue 46).
func TestDotnetPerfMapWhenCollecting(t *testing.T) {
	a := newTestAgent(t, Options{DotnetRoot: dotnettest.Standin(t)})
	job := api.Job{Name: "app", Dotnet: &api.Dotnet{Project: "src/App/App.csproj"}}
	for _, tc := range []struct {
		collect bool
		own     map[string]string
		want    string
	}{{true, nil, "1"}, {false, nil, ""}, {true, map[string]string{PerfMapEnv: "0"}, ""}} {
		job.Collect, job.Environment = tc.collect, tc.own
		_, _, env, err := a.dotnetJob(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		if env[PerfMapEnv] != tc.want {
			t.Errorf("collect %v, own %v: added %s=%q, want %q", tc.collect, tc.own, PerfMapEnv, env[PerfMapEnv], tc.want)
		}
	}
}
