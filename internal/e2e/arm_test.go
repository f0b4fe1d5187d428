package e2e

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/pack"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// buildArm64Agent cross-compiles crank-agent for linux/arm64 as `make agents` does.
func buildArm64Agent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "crank-agent-linux-arm64")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/crank-agent")
	cmd.Dir = testEnv.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the arm64 agent: %v\n%s", err, out)
	}
	return bin
}

// binfmtRunsArm64 reports whether the kernel runs arm64 executables itself (binfmt_misc has a
// qemu-aarch64 entry enabled): then an arm64 program a job builds can be its executable.
func binfmtRunsArm64() bool {
	b, err := os.ReadFile("/proc/sys/fs/binfmt_misc/qemu-aarch64")
	return err == nil && strings.HasPrefix(string(b), "enabled")
}

// TestArm64AgentUnderQemu: the arm64 agent, run by qemu-aarch64-static, says it is arm64, runs a
// shell job (the shell is this machine's, started by qemu's execve), and builds a Go job for
// arm64 (the agent sets GOARCH for builds) whose program prints its architecture. That program is
// arm64: it runs directly when binfmt_misc knows qemu, else through qemu-aarch64-static.
func TestArm64AgentUnderQemu(t *testing.T) {
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		testutil.Missing(t, "qemu-aarch64-static is not installed (apt-get install qemu-user-static): the arm64 agent cannot run here")
	}
	ap := runAgentBinary(t, []string{qemu}, buildArm64Agent(t), fmt.Sprintf("http://127.0.0.4:%d", freePort(t)))
	ap.waitHealthy(t, nil, 60*time.Second)
	c := ap.client(t, "", nil)
	ctx := context.Background()
	info, err := c.Info(ctx)
	if err != nil || info.Arch != "arm64" || info.OS != "linux" {
		t.Fatalf("info = %+v, %v; want linux/arm64", info, err)
	}
	t.Run("shell job", func(t *testing.T) {
		id, err := c.Submit(ctx, api.Job{Name: "sh", Executable: "/bin/sh", ReadyStateText: "arm ready",
			Arguments: `-c "echo arm ready; exec sleep 60"`, Options: api.Options{RequiredArchitecture: "arm64"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		waitJobState(t, c, id, 30*time.Second, api.StateRunning)
		if err := c.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		ap.waitClean(t, 15*time.Second)
	})
	t.Run("go job built for arm64", func(t *testing.T) {
		job := api.Job{Name: "goarch", Source: &api.Source{LocalFolder: "goarch"}, WaitForExit: true,
			BuildCommand: "go build -o app .", Executable: "./app"}
		if !binfmtRunsArm64() {
			job.Executable, job.Arguments = qemu, "./app"
			t.Log("binfmt_misc has no qemu-aarch64: the arm64 program runs through qemu-aarch64-static")
		}
		id, err := c.Submit(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		src := t.TempDir()
		writeFile(t, src, "go.mod", "module goarch\n\ngo 1.22\n")
		writeFile(t, src, "main.go", "package main\n\nimport (\n\t\"fmt\"\n\t\"runtime\"\n)\n\nfunc main() { fmt.Println(\"goarch=\" + runtime.GOARCH) }\n")
		packed, err := pack.Pack(src, pack.Exclude{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Upload(ctx, id, strings.NewReader(string(packed.TarGz))); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		st := waitJobState(t, c, id, 3*time.Minute, api.StateStopped, api.StateFailed)
		out, _ := c.Output(ctx, id, 0)
		if st.State != api.StateStopped || !strings.Contains(out, "goarch=arm64") {
			t.Fatalf("job %s (%s), output:\n%s", st.State, st.Error, out)
		}
		f, err := elf.Open(filepath.Join(ap.dir, id, "app"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Machine != elf.EM_AARCH64 {
			t.Errorf("the built program is %s, want EM_AARCH64", f.Machine)
		}
	})
}
