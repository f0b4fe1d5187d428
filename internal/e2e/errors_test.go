package e2e

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestYAMLErrorNamesFileAndLine(t *testing.T) {
	p := writeFile(t, t.TempDir(), "broken.yml", "scenarios:\n  x:\n    application:\n      job: [unclosed\n")
	r := crank(t, 30*time.Second, "--config", p, "--scenario", "x")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`broken\.yml:4:\d+: `).MatchString(r.stderr) {
		t.Errorf("stderr does not name file:line:column of the unclosed list (line 4):\n%s", r.stderr)
	}
}

func TestUnknownScenarioListsScenarios(t *testing.T) {
	r := crank(t, 30*time.Second, "--config", "scenarios/plaintext.yml", "--scenario", "nope")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "nope", "plaintext")
}

func TestUnreachableAgentFailsFastNamingURL(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t) // nothing listens there
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	p := writeFile(t, dir, "far.yml", `
imports:
  - `+filepath.Join(testEnv.root, "scenarios/plaintext.yml")+`
profiles:
  far:
    agents:
      main:
        endpoints: [ "`+url+`" ]
        aliases: [ application, load ]
`)
	start := time.Now()
	r := crank(t, time.Minute, "--config", p, "--scenario", "plaintext", "--profile", "far")
	took := time.Since(start)
	if r.code == 0 {
		t.Fatal("run succeeded against an agent that is not there")
	}
	mustContain(t, "stderr", r.stderr, url, "start an agent on that machine", "`bin/crank-agent --url "+url+"`")
	if took > 10*time.Second {
		t.Errorf("took %s to fail, want under 10 s", took)
	}
}

// TestPortInUseNamesTheVariable: the app cannot bind the port another program holds; the error
// quotes the app's bind error and names the variable that moves the port.
func TestPortInUseNamesTheVariable(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	port := strconv.Itoa(held.Addr().(*net.TCPAddr).Port)
	r := crank(t, 2*time.Minute, "--config", "scenarios/plaintext.yml", "--scenario", "plaintext", "--load.job", "builtin",
		"--variable", "serverPort="+port, "--variable", "duration=1", "--variable", "warmup=0")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the app failed)\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "address already in use", "port "+port+" is in use", "pass --variable serverPort=NNNN")
}

func TestDryRunWritesResolvedScenario(t *testing.T) {
	r := crank(t, 30*time.Second, "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--load.variables.connections", "77", "--application.environmentVariables", "GOGC=off", "--dry-run", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "dry run", r.stdout, `"scenario": "plaintext"`, `"application"`, `"load"`, "-c 77", `"GOGC": "off"`)
	if strings.Contains(r.stdout, "{{") {
		t.Errorf("unrendered template in dry run:\n%s", r.stdout)
	}
}
