package agent

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
)

// embeddedThenWait is the test binary as a crank that starts its embedded agent, runs a job that
// leaves a grandchild, says where, and waits to be killed (see TestMain).
func embeddedThenWait() {
	ctx := context.Background()
	token := NewToken()
	url, _, err := StartEmbedded(ctx, Options{Token: token})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	c, _ := api.NewClient(url, token, nil)
	id, err := c.Submit(ctx, api.Job{Executable: "sh", Arguments: `-c 'sleep 300 & echo "pids $! end"; sleep 300'`, ReadyStateText: "end"})
	if err == nil {
		err = c.Start(ctx, id)
	}
	for err == nil {
		var out string
		if out, err = c.Output(ctx, id, 0); strings.Contains(out, "end") {
			f := strings.Fields(out)
			fmt.Println("job", id, "grandchild", f[1])
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	time.Sleep(time.Minute) // killed by the test
	os.Exit(1)
}

// TestNextEmbeddedStartCleansAKilledOne: an agent without --dir (the embedded one included)
// killed with SIGKILL left its folder and its job's children, and no restart cleaned them. Its
// folder is now fixed and locked, so the next start finds them.
func TestNextEmbeddedStartCleansAKilledOne(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=embedded")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	var id string
	var grandchild int
	if _, err := fmt.Sscanf(line, "job %s grandchild %d", &id, &grandchild); err != nil {
		t.Fatalf("helper said %q: %v", line, err)
	}
	_ = cmd.Process.Kill() // SIGKILL: no cleanup
	_ = cmd.Wait()
	folder := filepath.Join(DefaultDirs()[0], id)
	if _, err := os.Stat(folder); err != nil {
		t.Fatalf("the killed agent's job folder %s: %v (the test needs it left)", folder, err)
	}
	if !proc.Alive(grandchild) {
		t.Fatalf("grandchild %d died with its agent (the test needs it left)", grandchild)
	}
	token := NewToken()
	_, stop, err := StartEmbedded(context.Background(), Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	waitGone(t, grandchild)
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Errorf("job folder after the next start: %v, want it removed", err)
	}
	// A second agent at the same time takes the next folder.
	a, err := New(Options{NoToken: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(context.Background())
	if a.Dir() != DefaultDirs()[1] || !strings.HasPrefix(a.Dir(), tmp) {
		t.Errorf("second agent's folder %s, want %s", a.Dir(), DefaultDirs()[1])
	}
}

// TestDefaultDirsRefuseAPlantedFolder: the default folders are under the shared temporary folder;
// one another user made first, or anyone may write, is refused.
func TestDefaultDirsRefuseAPlantedFolder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, userTempDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{NoToken: true}); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("a symlink planted as the folder: %v, want a refusal", err)
	}
	if err := os.Remove(userTempDir()); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(userTempDir(), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(userTempDir(), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{NoToken: true}); err == nil || !strings.Contains(err.Error(), "may be written by other users") {
		t.Errorf("a world-writable folder: %v, want a refusal", err)
	}
}
