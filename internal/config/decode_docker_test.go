package config

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

// A job shaped as aspnet/Benchmarks' te.benchmarks.yml ones, plus the limits and build arguments.
func TestDockerKeys(t *testing.T) {
	dir := writeTree(t, map[string]string{"main.yml": `jobs:
  aspnetcore:
    source:
      repository: https://github.com/TechEmpower/FrameworkBenchmarks.git
      branchOrCommit: master
      dockerFile: frameworks/CSharp/aspnetcore/aspnetcore.dockerfile
      dockerImageName: aspnetcore
      dockerContextDirectory: frameworks/CSharp/aspnetcore/
      dockerCommand: ./app --threads 2
    readyStateText: Application started
    arguments: --add-host="tfb-database:{{databaseServer}}"
    noClean: true
    buildArguments: [A=1, B]
    cpuSet: 0-3,6
    memoryLimitInBytes: 1073741824
    cpuLimitRatio: 1.5
    variables: {databaseServer: 10.0.0.2}
  bad:
    source: {dockerPull: x}
    memoryLimitInBytes: -1
    cpuLimitRatio: many
    buildArguments: [{a: 1}]
scenarios:
  te: {application: {job: aspnetcore}}
  bad: {application: {job: bad}}
`})
	t.Chdir(dir)
	cfg, err := Load(context.Background(), []string{"main.yml"}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.Resolve(Request{Scenario: "te"})
	if err != nil {
		t.Fatal(err)
	}
	j := r.Services[0].Job
	wantSrc := api.Source{Repository: "https://github.com/TechEmpower/FrameworkBenchmarks.git", BranchOrCommit: "master",
		DockerFile: "frameworks/CSharp/aspnetcore/aspnetcore.dockerfile", DockerImageName: "aspnetcore",
		DockerContextDirectory: "frameworks/CSharp/aspnetcore/", DockerCommand: "./app --threads 2"}
	if j.Source == nil || *j.Source != wantSrc {
		t.Errorf("source = %+v, want %+v", j.Source, wantSrc)
	}
	if j.Arguments != `--add-host="tfb-database:10.0.0.2"` || !j.NoClean || j.CpuSet != "0-3,6" ||
		j.MemoryLimitInBytes != 1<<30 || j.CPULimitRatio != 1.5 || !reflect.DeepEqual(j.BuildArguments, []string{"A=1", "B"}) {
		t.Errorf("job = %+v", j)
	}
	_, err = cfg.Resolve(Request{Scenario: "bad"})
	for _, want := range []string{`key "memoryLimitInBytes": want a whole number of bytes`, `key "cpuLimitRatio": want a number`,
		`key "buildArguments": want a list of strings`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v, want it to say %s", err, want)
		}
	}
}
