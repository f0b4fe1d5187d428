// Package dotnettest builds the stand-in .NET CLI (../testdata/standin) for tests on machines
// without a .NET SDK, and gives the stand-in projects beside it.
package dotnettest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// testdata is the dotnet package's testdata folder.
func testdata(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("dotnettest: no caller")
	}
	return filepath.Join(filepath.Dir(filepath.Dir(file)), "testdata")
}

// Standin builds the stand-in CLI as DIR/dotnet and returns DIR (for PATH or --dotnet-root).
func Standin(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "dotnet"), ".")
	cmd.Dir = filepath.Join(testdata(t), "standin")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in dotnet: %v\n%s", err, out)
	}
	return dir
}

// Benchmarks is the folder of the stand-in for aspnet/Benchmarks' repository: it holds
// src/Benchmarks/Benchmarks.csproj, whose app answers /plaintext and /json.
func Benchmarks(t testing.TB) string {
	t.Helper()
	return filepath.Join(testdata(t), "benchmarks")
}

// GrpcDotnet is the folder of the stand-in for grpc/grpc-dotnet's repository: it holds
// perf/benchmarkapps/GrpcAspNetCoreServer/GrpcAspNetCoreServer.csproj, whose app serves
// grpc.testing.BenchmarkService/UnaryCall over h2c.
func GrpcDotnet(t testing.TB) string {
	t.Helper()
	return filepath.Join(testdata(t), "grpc-dotnet")
}
