package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// The fault tests run the agent, the app and wrk in one network namespace and crank in another
// (see netLab), and break the run mid-load: the agent killed, crank killed, the link cut. Each
// stops every process it started; each takes well under a minute.

// lostAgentBound is how soon, in the gate, crank must fail naming the agent after the agent is
// lost: three times its AgentSilence (10 s), the timer it guards, which a busy core cannot stretch
// that far. A crank that never noticed the loss would run its whole scenario. The tight deadline,
// AgentSilence plus the last poll's timeout and the cleanup's short tries (15 s), is checked by
// the *WithinDeadline tests (make measure).
const lostAgentBound = 30 * time.Second

// TestFaultAgentKilled: SIGKILL to the agent mid-run; crank fails within lostAgentBound naming
// it, and the job processes die with the agent (parent-death signal).
func TestFaultAgentKilled(t *testing.T) {
	lab := newNetLab(t)
	testAgentKilled(t, lab)
}

// testAgentKilled runs the fault scenario, kills the agent, checks that crank fails within
// lostAgentBound naming it and that its jobs die, and returns how long crank took to fail.
func testAgentKilled(t *testing.T, lab *netLab) time.Duration {
	t.Helper()
	ap := lab.startLabAgent(t, "30s")
	c := lab.startLabCrank(t, faultScenario(t, prebuiltPlaintext(t)), ap)
	killed := time.Now()
	_ = ap.cmd.Process.Signal(syscall.SIGKILL)
	took := c.waitExit(t, lostAgentBound, killed)
	t.Logf("crank failed %s after the agent was killed", took.Round(100*time.Millisecond))
	if code := c.cmd.ProcessState.ExitCode(); code == 0 {
		t.Fatalf("crank exited 0 after its agent was killed:\n%s", c.errText())
	}
	mustContain(t, "crank's stderr", c.errText(), "agent http://"+labAgentAddr+":5010 has not answered")
	waitGone(t, 5*time.Second, "wrk", labAgentAddr+":5000")
	waitGone(t, 5*time.Second, "--address", labAgentAddr)
	return took
}

// TestFaultControllerKilled: SIGKILL to crank mid-run; the agent's lease (3 s) runs out and it
// kills the app and wrk and removes their folders.
func TestFaultControllerKilled(t *testing.T) {
	lab := newNetLab(t)
	ap := lab.startLabAgent(t, "3s")
	c := lab.startLabCrank(t, faultScenario(t, prebuiltPlaintext(t)), ap)
	killed := time.Now()
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
	ap.waitClean(t, 15*time.Second)
	t.Logf("agent clean %s after crank was killed (lease 3 s)", time.Since(killed).Round(100*time.Millisecond))
	mustContain(t, "agent log", ap.log(), "lease expired")
}

// TestFaultLinkCut: the link between crank and the agent goes down mid-run. crank fails within
// lostAgentBound naming the agent, as for a killed agent; the agent, which no longer hears from crank,
// cleans up once the lease (3 s) runs out.
func TestFaultLinkCut(t *testing.T) {
	lab := newNetLab(t)
	testLostLink(t, lab, lab.cut)
}

// TestFaultPacketsDropped: as TestFaultLinkCut, but the packets are silently dropped (as by a
// firewall), so crank's requests hang until they time out instead of failing at once.
func TestFaultPacketsDropped(t *testing.T) {
	lab := newNetLab(t)
	testLostLink(t, lab, lab.drop)
}

// testLostLink runs the fault scenario, breaks the network with fault, checks that crank fails
// within lostAgentBound naming the agent and that the agent cleans up after its lease, and
// returns how long crank took to fail.
func testLostLink(t *testing.T, lab *netLab, fault func(*testing.T)) time.Duration {
	t.Helper()
	ap := lab.startLabAgent(t, "3s")
	c := lab.startLabCrank(t, faultScenario(t, prebuiltPlaintext(t)), ap)
	at := time.Now()
	fault(t)
	clean := make(chan time.Duration, 1)
	go func() { clean <- waitCleanFrom(ap, at, 20*time.Second) }()
	took := c.waitExit(t, lostAgentBound, at)
	t.Logf("crank failed %s after the fault", took.Round(100*time.Millisecond))
	if code := c.cmd.ProcessState.ExitCode(); code == 0 {
		t.Fatalf("crank exited 0 after losing its agent:\n%s", c.errText())
	}
	mustContain(t, "crank's stderr", c.errText(), "agent http://"+labAgentAddr+":5010 has not answered")
	t.Logf("crank said: %s", lastLines(c.errText(), 1))
	d := <-clean
	if d < 0 {
		t.Fatalf("agent not clean 20 s after the fault: processes %v, folders %v\n%s", processesIn(ap.dir), ap.jobFolders(), ap.log())
	}
	t.Logf("agent clean %s after the fault (lease 3 s)", d.Round(100*time.Millisecond))
	mustContain(t, "agent log", ap.log(), "lease expired")
	return took
}

// waitCleanFrom polls (from any goroutine: it reads /proc and the job root only) until the agent
// has no job process and no job folder, and returns the time since from, or -1 after limit.
func waitCleanFrom(ap *agentProc, from time.Time, limit time.Duration) time.Duration {
	for len(processesIn(ap.dir)) > 0 || len(ap.jobFolders()) > 0 {
		if time.Since(from) > limit {
			return -1
		}
		time.Sleep(100 * time.Millisecond) // polling with a deadline
	}
	return time.Since(from)
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
