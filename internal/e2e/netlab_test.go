package e2e

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// netLab is two network namespaces made by the test, joined by a veth pair whose ends (and
// addresses, in 10.231.0.0/24) exist only inside them: the controller runs in one, the agent and
// its jobs in the other. Nothing is added to the machine's own namespace; deleting the namespaces
// at the end of the test removes the veth pair with them.
type netLab struct {
	ctl, agent     string // namespace names, unique per run
	ctlIf, agentIf string // the veth ends
}

const (
	labCtlAddr   = "10.231.0.1"
	labAgentAddr = "10.231.0.2"
)

// newNetLab builds the lab, or skips the test when it cannot (not root, no ip netns).
func newNetLab(t *testing.T) *netLab {
	t.Helper()
	if os.Geteuid() != 0 {
		testutil.Missing(t, "network namespace fault tests need root (ip netns add)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		testutil.Missing(t, "network namespace fault tests need iproute2's ip command")
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	lab := &netLab{ctl: "crk-" + id + "-c", agent: "crk-" + id + "-a", ctlIf: "vc" + id, agentIf: "va" + id}
	if out, err := exec.Command("ip", "netns", "add", lab.ctl).CombinedOutput(); err != nil {
		testutil.Missing(t, "ip netns is not available here: %v: %s", err, out)
	}
	t.Cleanup(func() { lab.ip(t, "netns", "del", lab.ctl) })
	lab.ip(t, "netns", "add", lab.agent)
	t.Cleanup(func() { lab.ip(t, "netns", "del", lab.agent) })
	lab.ip(t, "-n", lab.ctl, "link", "add", lab.ctlIf, "type", "veth", "peer", "name", lab.agentIf, "netns", lab.agent)
	for _, side := range []struct{ ns, ifc, addr string }{{lab.ctl, lab.ctlIf, labCtlAddr}, {lab.agent, lab.agentIf, labAgentAddr}} {
		lab.ip(t, "-n", side.ns, "addr", "add", side.addr+"/24", "dev", side.ifc)
		lab.ip(t, "-n", side.ns, "link", "set", side.ifc, "up")
		lab.ip(t, "-n", side.ns, "link", "set", "lo", "up")
	}
	return lab
}

// ip runs the ip command, failing the test (not stopping it from a cleanup) on error.
func (lab *netLab) ip(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// cut takes the controller's end of the link down: packets between the two stop.
func (lab *netLab) cut(t *testing.T) { lab.ip(t, "-n", lab.ctl, "link", "set", lab.ctlIf, "down") }

// drop makes the controller's side send every packet for the agent to a hardware address nobody
// has: the agent's end discards them, as a firewall dropping them would, and nothing answers
// (no reset, no unreachable), so the controller's requests hang until their timeouts.
func (lab *netLab) drop(t *testing.T) {
	lab.ip(t, "-n", lab.ctl, "neigh", "replace", labAgentAddr, "lladdr", "02:00:00:00:00:01", "dev", lab.ctlIf, "nud", "permanent")
}

// in is the command prefix that runs a program in namespace ns.
func in(ns string) []string { return []string{"ip", "netns", "exec", ns} }

// startLabAgent runs crank-agent in the agent's namespace on 10.231.0.2:5010 with a token and a
// short lease, and waits until it listens (its log says so: the test's own namespace cannot
// reach it).
func (lab *netLab) startLabAgent(t *testing.T, lease string) *agentProc {
	t.Helper()
	ap := runAgent(t, in(lab.agent), "http://"+labAgentAddr+":5010", "--token", testToken, "--lease", lease)
	ap.waitLogged(t, "agent listening", 15*time.Second)
	return ap
}

// prebuiltPlaintext builds apps/plaintext once for the test: the fault tests run it as a prebuilt
// executable (no source, no build on the agent), so they spend their time on the faults.
func prebuiltPlaintext(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plaintext")
	cmd := exec.Command("go", "build", "-o", bin, "./apps/plaintext")
	cmd.Dir = testEnv.root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building apps/plaintext: %v\n%s", err, out)
	}
	return bin
}

// faultScenario is the plaintext app (prebuilt) and a 60 s wrk, both on the lab's agent.
func faultScenario(t *testing.T, app string) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "fault.yml", fmt.Sprintf(`
imports:
  - %s
jobs:
  prebuilt:
    executable: %s
    arguments: --address %s --port 5000
    readyStateText: Application started.
scenarios:
  fault:
    application:
      job: prebuilt
    load:
      job: wrk
      variables: { serverAddress: %[3]s, path: /plaintext, duration: 60, warmup: 0 }
profiles:
  lab:
    agents:
      box:
        endpoints: [ "http://%[3]s:5010" ]
        aliases: [ application, load ]
`, filepath.Join(testEnv.root, "scenarios/jobs/wrk.yml"), app, labAgentAddr))
}

// labCrank is crank running in the controller's namespace.
type labCrank struct {
	cmd    *exec.Cmd
	done   chan struct{} // closed at its exit
	mu     sync.Mutex
	stderr strings.Builder
}

func (c *labCrank) errText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// startLabCrank runs the fault scenario from the controller's namespace and returns once the
// load runs on the agent (wrk has a process in the agent's job folders).
func (lab *netLab) startLabCrank(t *testing.T, cfg string, ap *agentProc) *labCrank {
	t.Helper()
	argv := append(in(lab.ctl), filepath.Join(testEnv.bins, "crank"), "--config", cfg, "--scenario", "fault", "--profile", "lab")
	c := &labCrank{cmd: exec.Command(argv[0], argv[1:]...), done: make(chan struct{})}
	c.cmd.Env = append(withoutEnv(os.Environ(), "CRANK_AGENT_TOKEN"), "CRANK_AGENT_TOKEN="+testToken)
	pipe, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			c.mu.Lock()
			c.stderr.WriteString(sc.Text() + "\n")
			c.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, pipe)
		_ = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.done
	})
	deadline := time.Now().Add(45 * time.Second)
	for len(processesWith("wrk", labAgentAddr+":5000")) == 0 {
		select {
		case <-c.done:
			t.Fatalf("crank exited before the load ran:\n%s\nagent:\n%s", c.errText(), ap.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the load never ran:\n%s", c.errText())
		}
		time.Sleep(100 * time.Millisecond) // polling with a deadline
	}
	return c
}

// waitExit waits for crank's exit, at most d, and returns how long it took from since.
func (c *labCrank) waitExit(t *testing.T, d time.Duration, since time.Time) time.Duration {
	t.Helper()
	select {
	case <-c.done:
		return time.Since(since)
	case <-time.After(d):
		t.Fatalf("crank still runs %s after the fault:\n%s", d, c.errText())
		return 0
	}
}
