package docker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/agent/output"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestCapAddRefusalNamesTheCapability: a --cap-add of a capability jobs' containers do not keep is
// refused naming it, what they keep and the opt-in; one they keep anyway (any spelling) is not.
func TestCapAddRefusalNamesTheCapability(t *testing.T) {
	ra, err := parseRunArgs("--cap-add net_raw --cap-add=CAP_SYS_ADMIN --cap-add NET_BIND_SERVICE")
	if err != nil {
		t.Fatal(err)
	}
	err = ra.hostAccess(false)
	want := "arguments: --cap-add=NET_RAW --cap-add=SYS_ADMIN would give the job's container the host (root on this machine); " +
		"this agent refuses it unless started with --allow-privileged-docker (its jobs' containers keep only the capabilities " +
		"CHOWN, DAC_OVERRIDE, FOWNER, KILL, NET_BIND_SERVICE, SETGID, SETUID: NET_RAW, SYS_ADMIN withheld)"
	if err == nil || err.Error() != want {
		t.Errorf("refusal:\n%v\nwant\n%s", err, want)
	}
	for _, args := range []string{"--cap-add net_bind_service", "--cap-add=CAP_SETUID --cap-add chown"} {
		if ra, err := parseRunArgs(args); err != nil || ra.hostAccess(false) != nil {
			t.Errorf("%s: %v, %v: want it allowed (kept anyway)", args, err, ra.hostAccess(false))
		}
	}
}

// keptMask is CapEff of a process holding keptCaps: CHOWN 0, DAC_OVERRIDE 1, FOWNER 3, KILL 5,
// SETGID 6, SETUID 7, NET_BIND_SERVICE 10.
const keptMask = "00000000000004eb"

// TestContainerCapabilities (issue 41, HIGH 1): a Docker job's container, on the host's network,
// has every capability dropped but keptCaps, and no-new-privileges, as the engine reports its
// HostConfig and as the kernel reports its process; the sniffer image cannot open an AF_PACKET
// socket, nor set up an io_uring instance (the agent's seccomp profile, whatever the engine's
// version). With --allow-privileged-docker, a job that asks for NET_RAW or seccomp=unconfined
// gets it.
func TestContainerCapabilities(t *testing.T) {
	cli := testutil.DockerEngine(t)
	image := testutil.DockerImageName(t, cli)
	src := t.TempDir()
	testutil.Sniffer(t, src)
	if err := os.WriteFile(filepath.Join(src, "Dockerfile"), []byte(testutil.SnifferDockerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, allow bool, args string) (string, string, []string) {
		r := New(Options{Dir: t.TempDir(), AllowPrivileged: allow, ImageCacheMaxBytes: -1, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
		j := &runtime.Job{ID: fmt.Sprint(time.Now().UnixNano()), Dir: src, Identity: "caps:" + image, Out: output.New(0), Warn: func(string) {},
			Log: slog.New(slog.NewTextHandler(t.Output(), nil)), SetBuild: func(float64, bool) {},
			Spec: api.Job{Name: "sniffer", Arguments: args, Source: &api.Source{LocalFolder: ".", DockerFile: "Dockerfile",
				DockerImageName: image, DockerCommand: "127.0.0.1:1 /nonexistent 0"}}}
		if problems := r.Check(j.Spec); len(problems) > 0 {
			t.Fatalf("check: %v", problems)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		if err := r.Prepare(ctx, j); err != nil {
			t.Fatal(err)
		}
		stdout := output.New(0)
		h, err := r.Start(ctx, j, runtime.Run{Stdout: stdout})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Stop(time.Second)
		for end := time.Now().Add(30 * time.Second); !strings.Contains(string(stdout.Since(0)), "sniffer ready") && time.Now().Before(end); {
			select {
			case <-h.Wait():
				t.Fatalf("the sniffer exited: %q %q", stdout.Since(0), j.Out.Since(0))
			case <-time.After(50 * time.Millisecond):
			}
		}
		in, err := cli.ContainerInspect(ctx, h.(*containerHandle).id, client.ContainerInspectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", in.Container.State.Pid))
		if err != nil {
			t.Fatal(err)
		}
		var capEff string
		for l := range strings.Lines(string(status)) {
			if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
				capEff = strings.TrimSpace(v)
			}
		}
		hc := in.Container.HostConfig
		wantOpt, err := seccompOpt()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(args, seccompUnconfined) {
			wantOpt = seccompUnconfined
		}
		if !slices.Equal(hc.CapDrop, []string{"ALL"}) || !slices.Equal(hc.SecurityOpt, []string{"no-new-privileges", wantOpt}) || hc.NetworkMode != "host" {
			t.Errorf("HostConfig CapDrop %v, SecurityOpt %.80q, NetworkMode %s: want [ALL], [no-new-privileges %.40s...], host", hc.CapDrop, hc.SecurityOpt, hc.NetworkMode, wantOpt)
		}
		var added []string // the engine spells them CAP_X, sorted
		for _, c := range hc.CapAdd {
			added = append(added, capName(c))
		}
		slices.Sort(added)
		return string(stdout.Since(0)), capEff, added
	}
	t.Run("default", func(t *testing.T) {
		out, capEff, capAdd := run(t, false, "")
		if capEff != keptMask || !slices.Equal(capAdd, keptCaps) {
			t.Errorf("CapEff %s, CapAdd %v: want %s, %v", capEff, capAdd, keptMask, keptCaps)
		}
		if !strings.Contains(out, "packet socket: operation not permitted (EPERM)") {
			t.Errorf("sniffer output %q, want the packet socket refused", out)
		}
		if !strings.Contains(out, "io_uring: io_uring_setup: operation not permitted (EPERM)") {
			t.Errorf("sniffer output %q, want io_uring refused by the seccomp profile", out)
		}
	})
	t.Run("seccomp=unconfined asked and allowed", func(t *testing.T) {
		out, capEff, _ := run(t, true, "--security-opt seccomp=unconfined")
		if capEff != keptMask || !strings.Contains(out, "io_uring: set up") || !strings.Contains(out, "packet socket: operation not permitted") {
			t.Errorf("CapEff %s, sniffer output %q: want %s, io_uring set up and the packet socket still refused", capEff, out, keptMask)
		}
	})
	t.Run("NET_RAW asked and allowed", func(t *testing.T) {
		out, capEff, capAdd := run(t, true, "--cap-add NET_RAW")
		if want := "00000000000024eb"; capEff != want || !slices.Equal(capAdd, slices.Sorted(slices.Values(append(slices.Clone(keptCaps), "NET_RAW")))) {
			t.Errorf("CapEff %s, CapAdd %v: want %s and NET_RAW added", capEff, capAdd, want)
		}
		if !strings.Contains(out, "packet socket: opened") {
			t.Errorf("sniffer output %q, want the packet socket opened", out)
		}
	})
}
