// Package agents_test checks the files that install crank-agent on a benchmark machine: the
// install script (into a folder, twice), shellcheck, the systemd unit and the Containerfile.
package agents_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// install runs install.sh into root with the given options and returns its output.
func install(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"install.sh"}, args...)...)
	cmd.Env = append(os.Environ(), "CRANK_AGENT_ROOT="+root, "CRANK_AGENT_TOKEN=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// settings reads the env file install.sh wrote.
func settings(t *testing.T, root string) map[string]string {
	t.Helper()
	path := filepath.Join(root, "etc/crank-agent/env")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("env file mode %v, want 0600 (it holds the token: the service's jobs must not read it)", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}

// TestInstallIsIdempotent installs into a folder, then again: the token and settings are kept
// unless given anew, and the files are where the unit expects them.
func TestInstallIsIdempotent(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(t.TempDir(), "crank-agent")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho agent\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := install(t, root, "--binary", bin, "--url", "http://10.0.0.2:5010", "--hardware", "Ampere Altra 80")
	first := settings(t, root)
	token := first["CRANK_AGENT_TOKEN"]
	if len(token) < 32 || !strings.Contains(out, token) {
		t.Fatalf("generated token %q (printed: %v)\n%s", token, strings.Contains(out, token), out)
	}
	if first["CRANK_AGENT_URL"] != "http://10.0.0.2:5010" || first["CRANK_AGENT_HARDWARE"] != `"Ampere Altra 80"` {
		t.Errorf("settings %v", first)
	}
	for _, f := range []string{"usr/local/bin/crank-agent", "etc/systemd/system/crank-agent.service", "usr/local/share/doc/crank-agent/README.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	out = install(t, root, "--binary", bin)
	if again := settings(t, root); again["CRANK_AGENT_TOKEN"] != token || again["CRANK_AGENT_URL"] != first["CRANK_AGENT_URL"] ||
		again["CRANK_AGENT_HARDWARE"] != first["CRANK_AGENT_HARDWARE"] || strings.Contains(out, token) {
		t.Errorf("second install changed the settings or printed the token again: %v\n%s", again, out)
	}
	install(t, root, "--binary", bin, "--token", "rotated-token-123")
	if got := settings(t, root)["CRANK_AGENT_TOKEN"]; got != "rotated-token-123" {
		t.Errorf("token after --token: %q", got)
	}
	left, _ := filepath.Glob(filepath.Join(root, "etc/crank-agent/.env.*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestInstallRefusesBadInput(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "crank-agent")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--binary", bin, "--url", "10.0.0.2:5010"},
		{"--binary", bin, "--token", "has space"},
		{"--binary", bin, "--hardware", `quote"d`},
		{"--binary", filepath.Join(t.TempDir(), "missing")},
		{"--no-such-option"},
	} {
		cmd := exec.Command("sh", append([]string{"install.sh"}, args...)...)
		cmd.Env = append(os.Environ(), "CRANK_AGENT_ROOT="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "install.sh: ") {
			t.Errorf("install.sh %q: %v, want a failure saying why\n%s", args, err, out)
		}
	}
}

func TestShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		testutil.Missing(t, "shellcheck is not installed (apt-get install shellcheck)")
	}
	if out, err := exec.Command("shellcheck", "install.sh").CombinedOutput(); err != nil {
		t.Errorf("shellcheck install.sh: %v\n%s", err, out)
	}
}

// TestUnitVerifies runs systemd-analyze verify on the unit (with an executable that exists here).
func TestUnitVerifies(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		testutil.Missing(t, "systemd-analyze is not installed (apt-get install systemd)")
	}
	unit, err := os.ReadFile("crank-agent.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NoNewPrivileges=yes", "EnvironmentFile=/etc/crank-agent/env", "ProtectSystem=strict", "--cache-dir /var/cache/crank-agent"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("the unit lacks %s", want)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "crank-agent.service")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(unit), "/usr/local/bin/crank-agent", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("systemd-analyze", "verify", p).CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestContainerfile: the image builds the agent for the target platform and copies only what exists.
func TestContainerfile(t *testing.T) {
	b, err := os.ReadFile("Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{"GOARCH=$TARGETARCH", "./cmd/crank-agent", "USER crank-agent", "--cache-dir", "ENTRYPOINT"} {
		if !strings.Contains(text, want) {
			t.Errorf("Containerfile lacks %q", want)
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^COPY ([^-\s]\S*)`).FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil && m[1] != "." {
			t.Errorf("COPY %s: %v", m[1], err)
		}
	}
}
