package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influxtest"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// hostLab is a lab of machines, each a network namespace with its own address, joined by a
// bridge in a namespace of its own (the switch). Nothing is added to the machine's own namespace;
// deleting the namespaces removes the links with them. The addresses are a shipped profile's, so
// the profile runs as it is.
type hostLab struct {
	id    string
	sw    string
	hosts map[string]string // address -> namespace
}

// newHostLab makes the switch and one host per address (a /24 each), or reports the missing part.
func newHostLab(t *testing.T, addrs ...string) *hostLab {
	t.Helper()
	if os.Geteuid() != 0 {
		testutil.Missing(t, "root, to make network namespaces (ip netns add)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		testutil.Missing(t, "iproute2's ip command")
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	lab := &hostLab{id: hex.EncodeToString(b), hosts: map[string]string{}}
	lab.sw = "crh-" + lab.id + "-sw"
	if out, err := exec.Command("ip", "netns", "add", lab.sw).CombinedOutput(); err != nil {
		testutil.Missing(t, "ip netns: %v: %s", err, out)
	}
	t.Cleanup(func() { labIP(t, "netns", "del", lab.sw) })
	labIP(t, "-n", lab.sw, "link", "add", "br0", "type", "bridge")
	labIP(t, "-n", lab.sw, "link", "set", "br0", "up")
	for i, addr := range addrs {
		ns := "crh-" + lab.id + "-" + strings.ReplaceAll(addr, ".", "-")
		port := "p" + lab.id + string(rune('a'+i))
		labIP(t, "netns", "add", ns)
		t.Cleanup(func() { labIP(t, "netns", "del", ns) })
		labIP(t, "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", lab.sw)
		labIP(t, "-n", lab.sw, "link", "set", port, "master", "br0")
		labIP(t, "-n", lab.sw, "link", "set", port, "up")
		labIP(t, "-n", ns, "addr", "add", addr+"/24", "dev", "eth0")
		labIP(t, "-n", ns, "link", "set", "eth0", "up")
		labIP(t, "-n", ns, "link", "set", "lo", "up")
		lab.hosts[addr] = ns
	}
	return lab
}

func labIP(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// agent starts crank-agent with the test token on addr:5010 and waits until it listens.
func (lab *hostLab) agent(t *testing.T, addr string, extra ...string) *agentProc {
	t.Helper()
	ap := runAgent(t, in(lab.hosts[addr]), "http://"+addr+":5010", append([]string{"--token", testToken}, extra...)...)
	ap.waitLogged(t, "agent listening", 30*time.Second)
	return ap
}

// crank runs bin/crank on the host addr (the controller's machine) with the test token.
func (lab *hostLab) crank(t *testing.T, addr string, timeout time.Duration, args ...string) runResult {
	t.Helper()
	argv := append(in(lab.hosts[addr]), filepath.Join(testEnv.bins, "crank"))
	return crankCommand(t, timeout, []string{"CRANK_AGENT_TOKEN=" + testToken}, append(argv, args...)...)
}

// run runs argv on the host addr and returns its output.
func (lab *hostLab) run(addr string, argv ...string) (string, error) {
	out, err := exec.Command("ip", append([]string{"netns", "exec", lab.hosts[addr]}, argv...)...).CombinedOutput()
	return string(out), err
}

// influxd runs InfluxDB 1.8 on the host addr (port 8086) with the database crank, and returns its
// URL once it answers (asked from the host from).
func (lab *hostLab) influxd(t *testing.T, addr, from string) string {
	t.Helper()
	bin, err := influxtest.Binary()
	if err != nil {
		testutil.Missing(t, "influxd: %v", err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "influxdb.conf")
	if err := os.WriteFile(conf, []byte(influxtest.Config(dir, addr, 8086, 8088)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", "netns", "exec", lab.hosts[addr], bin, "run", "-config", conf)
	var log testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	url := "http://" + addr + ":8086"
	deadline := time.Now().Add(influxtest.StartTimeout)
	for {
		if _, err := lab.run(from, "curl", "-sf", "-XPOST", url+"/query", "--data-urlencode", "q=CREATE DATABASE crank"); err == nil {
			return url
		}
		select {
		case <-exited:
			t.Fatalf("influxd exited:\n%s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("influxd on %s not answering after %s:\n%s", addr, influxtest.StartTimeout, log.String())
		}
		time.Sleep(100 * time.Millisecond) // polling with a deadline
	}
}
