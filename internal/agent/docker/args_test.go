package docker

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
		if got := ImageName(&c.src); got != c.want {
			t.Errorf("ImageName(%+v) = %q, want %q", c.src, got, c.want)
		}
	}
	if got := containerName("benchmarks_ntex-plt", "0123"); got != "benchmarks_ntex_plt-0123" {
		t.Errorf("containerName = %q", got)
	}
}
