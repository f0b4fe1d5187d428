package dotnet_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/dotnet"
	"github.com/crankshaft/crankshaft/internal/agent/dotnet/dotnettest"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestStandinBuildsAndRuns: the agent's plan for aspnet/Benchmarks' project, run against the
// stand-in CLI (which accepts only what the .NET CLI documents): the SDKs it lists, the publish
// command, and the published app started as the agent starts it, answering /plaintext.
func TestStandinBuildsAndRuns(t *testing.T) {
	root := dotnettest.Standin(t)
	bin, err := dotnet.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	info := dotnet.List(context.Background(), bin)
	if len(info.SDKs) != 2 || info.SDKs[1] != "9.0.101" || len(info.Runtimes["Microsoft.AspNetCore.App"]) != 2 {
		t.Fatalf("info %+v", info)
	}
	port := testutil.FreePorts(t, 1)[0]
	for _, selfContained := range []bool{false, true} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(dotnettest.Benchmarks(t))); err != nil {
			t.Fatal(err)
		}
		plan, err := dotnet.Prepare(bin, info, api.Dotnet{Project: "src/Benchmarks/Benchmarks.csproj", SelfContained: selfContained},
			[]string{"--disable-build-servers"}, "--nonInteractive true --scenarios plaintext --urls http://127.0.0.1:"+strconv.Itoa(port), runtime.GOARCH)
		if err != nil {
			t.Fatal(err)
		}
		build := exec.Command("sh", "-c", plan.BuildCommand)
		build.Dir = dir
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", plan.BuildCommand, err, out)
		}
		exe := plan.Executable
		if !filepath.IsAbs(exe) {
			exe = filepath.Join(dir, exe)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, exe, strings.Fields(plan.Arguments)...)
		cmd.Dir = dir
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() && !strings.HasPrefix(sc.Text(), "Application started.") {
		}
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/plaintext")
		var body []byte
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		cancel()
		if err != nil || string(body) != "Hello, World!" {
			t.Errorf("self-contained %v: GET /plaintext: %v %q", selfContained, err, body)
		}
	}
}

// TestStandinRefusesWhatTheCLIDoesNotDocument keeps the stand-in honest: an option the .NET CLI
// does not have fails, as the real one would.
func TestStandinRefusesWhatTheCLIDoesNotDocument(t *testing.T) {
	bin := filepath.Join(dotnettest.Standin(t), "dotnet")
	for _, args := range [][]string{{"publish", "x.csproj", "--frobnicate"}, {"publish", "x.csproj", "--self-contained"}, {"build-it"}} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err == nil {
			t.Errorf("dotnet %v succeeded:\n%s", args, out)
		}
	}
}
