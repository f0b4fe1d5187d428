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
		"-v /:/host":                         `"-v" is not a docker run option this agent passes on`,
		"--add-host":                         "--add-host needs a value",
		`--env "a`:                           "arguments:",
		"--memory 1g x":                      `"--memory" is not a docker run option`,
		"--security-opt apparmor=unconfined": "this agent passes on only --security-opt seccomp=unconfined",
		"--security-opt=seccomp=/etc/profile.json": "--security-opt seccomp=/etc/profile.json: this agent passes on only",
		"--security-opt label=disable":             "its seccomp profile, without io_uring",
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

// TestHostAccessSpellings: the second audit's spellings: --privileged=1 or =TRUE is privileged
// (docker reads the value as a boolean) and so refused; --privileged=maybe is refused as
// unreadable; --ipc=HOST, --network=CONTAINER:x and namespace paths are refused whatever their case;
// seccomp=unconfined is refused in docker's two spellings.
func TestHostAccessSpellings(t *testing.T) {
	for _, args := range []string{"--privileged=1", "--privileged=TRUE", "--privileged=True", "--ipc=HOST", "--ipc=Container:x",
		"--network=CONTAINER:x", "--network=ns:/proc/1/ns/net", "--ipc=ns:/proc/1/ns/ipc",
		"--security-opt seccomp=unconfined", "--security-opt=seccomp:unconfined"} {
		ra, err := parseRunArgs(args)
		if err != nil {
			t.Errorf("%s: %v", args, err)
			continue
		}
		if err := ra.hostAccess(false); err == nil || !strings.Contains(err.Error(), "would give the job's container the host") {
			t.Errorf("%s: %v, want it refused", args, err)
		}
		if err := ra.hostAccess(true); err != nil {
			t.Errorf("%s with --allow-privileged-docker: %v", args, err)
		}
	}
	if _, err := parseRunArgs("--privileged=maybe"); err == nil || !strings.Contains(err.Error(), "want --privileged, --privileged=true or --privileged=false") {
		t.Errorf("--privileged=maybe: %v", err)
	}
	if ra, err := parseRunArgs("--privileged=false --network=host"); err != nil || ra.hostAccess(false) != nil {
		t.Errorf("--privileged=false --network=host: %+v %v", ra, err)
	}
}
