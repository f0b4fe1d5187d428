package agent

import (
	"reflect"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

func TestParseRunArgs(t *testing.T) {
	ra, err := parseRunArgs(`--add-host="tfb-database:10.0.0.2" -e A=1 --env=B="two words" --network bridge --privileged --cap-add SYS_PTRACE --ipc=host`)
	if err != nil {
		t.Fatal(err)
	}
	want := runArgs{extraHosts: []string{"tfb-database:10.0.0.2"}, env: []string{"A=1", "B=two words"}, network: "bridge",
		privileged: true, capAdd: []string{"SYS_PTRACE"}, ipc: "host"}
	if !reflect.DeepEqual(ra, want) {
		t.Errorf("got %+v, want %+v", ra, want)
	}
	for args, msg := range map[string]string{
		"-v /:/host":    `"-v" is not a docker run option this agent passes on`,
		"--add-host":    "--add-host needs a value",
		`--env "a`:      "arguments:",
		"--memory 1g x": `"--memory" is not a docker run option`,
	} {
		if _, err := parseRunArgs(args); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want %q", args, err, msg)
		}
	}
}

// Images and containers are named as crank's agent names them.
func TestImageAndContainerNames(t *testing.T) {
	for _, c := range []struct {
		src  api.Source
		want string
	}{
		{api.Source{DockerFile: "frameworks/Go/gin/gin.dockerfile", DockerImageName: "Gin"}, "benchmarks_gin"},
		{api.Source{DockerFile: "frameworks/Go/gin/gin.dockerfile", DockerImageName: "benchmarks_Gin"}, "benchmarks_Gin"},
		{api.Source{DockerFile: "frameworks/Rust/ntex/ntex-plt.dockerfile"}, "benchmarks_ntex-plt"},
		{api.Source{DockerPull: "Redis:7"}, "redis:7"},
		{api.Source{DockerLoad: "img.tar", DockerImageName: "Mine"}, "Mine"},
	} {
		if got := imageName(&c.src); got != c.want {
			t.Errorf("imageName(%+v) = %q, want %q", c.src, got, c.want)
		}
	}
	if got := containerName("benchmarks_ntex-plt", "0123"); got != "benchmarks_ntex_plt-0123" {
		t.Errorf("containerName = %q", got)
	}
}

// TestDockerHostAccessRefused: the docker run options that give a container the host (an audit
// read /root through --cap-add=DAC_READ_SEARCH and open_by_handle_at) are refused at submission,
// naming the option and the opt-in, unless the agent was started with --allow-privileged-docker.
func TestDockerHostAccessRefused(t *testing.T) {
	job := func(args string) api.Job {
		return api.Job{Name: "x", Arguments: args, Source: &api.Source{DockerPull: "scratch-image"}}
	}
	strict := newTestAgent(t, Options{})
	for _, args := range []string{"--privileged", "--cap-add=DAC_READ_SEARCH", "--cap-add ALL", "--ipc=host", "--network=container:victim"} {
		_, err := strict.c.Submit(t.Context(), job(args))
		if err == nil || !strings.Contains(err.Error(), "would give the job's container the host") || !strings.Contains(err.Error(), "--allow-privileged-docker") {
			t.Errorf("%s: %v, want a refusal naming the opt-in", args, err)
		}
	}
	if _, err := strict.c.Submit(t.Context(), job("--network=bridge --add-host=db:10.0.0.2")); err != nil && strings.Contains(err.Error(), "the host") {
		t.Errorf("a bridge network and a host entry are no host access: %v", err)
	}
	open := newTestAgent(t, Options{AllowPrivilegedDocker: true})
	if _, err := open.c.Submit(t.Context(), job("--cap-add=SYS_PTRACE")); err != nil && strings.Contains(err.Error(), "the host") {
		t.Errorf("with --allow-privileged-docker: %v", err)
	}
}
