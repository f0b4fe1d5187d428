package agent

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// A Docker job gets its limits, environment and docker run options; it is sampled from its
// control group; stop removes the container.
func TestDockerJobLimitsAndCleanup(t *testing.T) {
	t.Parallel()
	cli := testutil.DockerEngine(t)
	image := testutil.DockerImageName(t, cli)
	ports := testutil.FreePorts(t, 2)
	repo := testutil.FrameworkRepo(t, "../..", ports[0], ports[1], "")
	ta := newTestAgent(t, Options{Interval: 100 * time.Millisecond})
	id := ta.submit(t, api.Job{Name: "te", ReadyStateText: "Application started",
		Source: &api.Source{Repository: "file://" + repo, BranchOrCommit: "master", DockerImageName: image,
			DockerFile: "frameworks/Go/crankshaft/crankshaft.dockerfile", DockerContextDirectory: "frameworks/Go/crankshaft/"},
		Arguments: `--add-host="tfb-database:10.9.9.9"`, Environment: map[string]string{"GREETING": "hello"},
		CpuSet: "0", MemoryLimitInBytes: 256 << 20, CPULimitRatio: 0.5})
	st := ta.waitState(t, id, api.StateRunning)
	if len(st.Warnings) > 0 {
		t.Errorf("warnings: %v", st.Warnings)
	}
	names := testutil.ContainersOf(t, cli, image)
	if len(names) != 1 || !strings.HasSuffix(names[0], "-"+id) {
		t.Fatalf("containers %v, want one named after the image and the job", names)
	}
	in, err := cli.ContainerInspect(context.Background(), strings.TrimPrefix(names[0], "/"), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc, cfg := in.Container.HostConfig, in.Container.Config
	if hc.CpusetCpus != "0" || hc.Memory != 256<<20 || hc.CPUQuota != 50000 || hc.CPUPeriod != 100000 ||
		!slices.Contains(hc.ExtraHosts, "tfb-database:10.9.9.9") || string(hc.NetworkMode) != "host" {
		t.Errorf("host config: cpuset %q memory %d quota %d/%d hosts %v network %q", hc.CpusetCpus, hc.Memory,
			hc.CPUQuota, hc.CPUPeriod, hc.ExtraHosts, hc.NetworkMode)
	}
	if !slices.Contains(cfg.Env, "GREETING=hello") {
		t.Errorf("env %v", cfg.Env)
	}
	// Memory is the container's control group's working set (as docker stats), not the sum of its
	// processes' VmRSS: the sample agrees with the group read directly.
	// A starting container grows (1.1 MB at the first sample, 1.9 MB when its group was read in
	// one run), so the latest sample is compared with the group read just after it, until they
	// agree or 10 s have passed.
	ta.waitSample(t, id, measure.WorkingSet)
	group, _ := cgroup.OfPid(in.Container.State.Pid)
	if _, ok := cgroup.WorkingSet(in.Container.State.Pid, group); !ok {
		t.Errorf("container process %d: no memory control group", in.Container.State.Pid)
	} else {
		var sampled, mb float64
		agree := testutil.Within(10*time.Second, func() bool {
			sampled = ta.lastSample(t, id, measure.WorkingSet)
			ws, _ := cgroup.WorkingSet(in.Container.State.Pid, group)
			mb = ws / (1 << 20)
			return math.Abs(sampled-mb) <= max(0.5, 0.03*mb)
		})
		if !agree {
			t.Errorf("working set sampled %.2f MB, the container's cgroup %.2f MB", sampled, mb)
		} else {
			t.Logf("working set sampled %.2f MB, the container's cgroup %.2f MB", sampled, mb)
		}
	}
	if err := ta.c.Stop(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if left := testutil.ContainersOf(t, cli, image); len(left) > 0 {
		t.Errorf("containers left after stop: %v", left)
	}
}

// An agent with no engine refuses a Docker job at submission, saying so.
func TestDockerJobWithoutEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	ta := newTestAgent(t, Options{})
	_, err := ta.c.Submit(context.Background(), api.Job{Name: "te",
		Source: &api.Source{Repository: "https://example.com/x.git", DockerFile: "Dockerfile"}})
	if statusCode(err) != 400 || !strings.Contains(err.Error(), "this job needs Docker: no Docker engine answers at unix:///nonexistent/docker.sock") {
		t.Errorf("submit: %v", err)
	}
}

// waitSample polls the job's measurements until one named name is above 0.
func (ta *testAgent) waitSample(t *testing.T, id, name string) float64 {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ms, err := ta.c.Measurements(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms.Measurements {
			if m.Name == name && m.Value > 0 {
				return m.Value
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s sample above 0 in 15 s", name)
		}
		time.Sleep(50 * time.Millisecond) // polling with a deadline
	}
}

// lastSample is the job's latest sample of name (0 when there is none).
func (ta *testAgent) lastSample(t *testing.T, id, name string) float64 {
	t.Helper()
	ms, err := ta.c.Measurements(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	v := 0.0
	for _, m := range ms.Measurements {
		if m.Name == name {
			v = m.Value
		}
	}
	return v
}

// The image cache is bounded: with room for one image, a second job's build evicts the first
// job's image (its container gone), and keeps its own. (Their build arguments differ, so the
// images do: the same build gives the same image under both names.)
func TestDockerImageCacheBounded(t *testing.T) {
	t.Parallel()
	cli := testutil.DockerEngine(t)
	first, second := testutil.DockerImageName(t, cli), testutil.DockerImageName(t, cli)
	ports := testutil.FreePorts(t, 2)
	repo := testutil.FrameworkRepo(t, "../..", ports[0], ports[1], "")
	ta := newTestAgent(t, Options{ImageCacheMaxBytes: 1})
	run := func(image string) {
		id := ta.submit(t, api.Job{Name: "te", ReadyStateText: "Application started",
			Source: &api.Source{Repository: "file://" + repo, BranchOrCommit: "master", DockerImageName: image,
				DockerFile: "frameworks/Go/crankshaft/crankshaft.dockerfile"}, BuildArguments: []string{"NAME=" + image}})
		ta.waitState(t, id, api.StateRunning)
		if err := ta.c.Delete(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	run(first)
	if tags := testutil.ImageTags(t, cli, first); len(tags) != 2 {
		t.Fatalf("first image's tags %v, want latest and the build key", tags)
	}
	run(second)
	if tags := testutil.ImageTags(t, cli, first); len(tags) != 0 {
		t.Errorf("first image still cached: %v", tags)
	}
	if tags := testutil.ImageTags(t, cli, second); len(tags) != 2 {
		t.Errorf("second image's tags %v, want it kept", tags)
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
