package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// sniffConfig runs the sniffer image (internal/testutil/sniffer) as the application on the agent at
// url, with args as its docker run options, while a load of 10 s keeps crank polling the agent;
// the sniffer listens 3 s, then replays toward the agent and would have its job write marker.
func sniffConfig(t *testing.T, url, image, args, marker string) string {
	t.Helper()
	src := t.TempDir()
	testutil.Sniffer(t, src)
	writeFile(t, src, "Dockerfile", testutil.SnifferDockerfile)
	return writeFile(t, t.TempDir(), "sniff.yml", fmt.Sprintf(`
jobs:
  sniffer:
    source:
      localFolder: %[1]s
      dockerFile: Dockerfile
      dockerImageName: %[2]s
      dockerCommand: %[3]s %[4]s 3
    arguments: '%[5]s'
    readyStateText: sniffer ready
  load:
    executable: /bin/sh
    arguments: '-c "sleep 10; echo done"'
    waitForExit: true
scenarios:
  sniff:
    application:
      job: sniffer
    load:
      job: load
profiles:
  agent:
    agents:
      application: { endpoints: [ "%[6]s" ] }
      load: { endpoints: [ "%[6]s" ] }
`, src, image, strings.TrimPrefix(url, "http://"), marker, args, url))
}

// TestDockerJobCannotSniffTheToken (issue 41, HIGH 1): a job image on the host's network that
// opens an AF_PACKET socket on lo to read crank's requests to the agent and replay them as a job
// of its own. By default its container lacks NET_RAW: the socket is refused and no job it posted
// runs. Given NET_RAW (an agent started with --allow-privileged-docker, a job asking
// --cap-add NET_RAW), it reads crank's requests, and what it replays must be refused: that half
// holds only with requests signed instead of carrying the bearer token (issue 41's other part).
func TestDockerJobCannotSniffTheToken(t *testing.T) {
	cli := testutil.DockerEngine(t)
	run := func(t *testing.T, args string, agentFlags ...string) (string, string) {
		const token = "sniffed-token-for-the-test"
		url := startAgent(t, fmt.Sprintf("127.0.0.1:%d", freePort(t)), append([]string{"--token", token}, agentFlags...)...)
		marker := filepath.Join(t.TempDir(), "sniffed-job-ran")
		out := t.TempDir()
		cfg := sniffConfig(t, url, testutil.DockerImageName(t, cli), args, marker)
		r := crankEnv(t, 3*time.Minute, []string{"CRANK_AGENT_TOKEN=" + token, "XDG_CACHE_HOME=" + t.TempDir()},
			"--config", cfg, "--scenario", "sniff", "--profile", "agent", "--output-dir", out)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		log, err := os.ReadFile(filepath.Join(out, "application.output.log"))
		if err != nil {
			t.Fatal(err)
		}
		if ran, err := os.ReadFile(marker); err == nil {
			t.Errorf("a job the sniffer posted ran on the agent's machine: %q", ran)
		}
		return string(log), r.stderr
	}
	t.Run("NET_RAW dropped", func(t *testing.T) {
		log, _ := run(t, "")
		if !strings.Contains(log, "packet socket: operation not permitted (EPERM)") || strings.Contains(log, "captured") {
			t.Errorf("sniffer's output %q, want its packet socket refused (EPERM)", log)
		}
	})
	t.Run("NET_RAW allowed, replay refused", func(t *testing.T) {
		log, _ := run(t, "--cap-add NET_RAW", "--allow-privileged-docker")
		if !strings.Contains(log, "packet socket: opened") || regexp.MustCompile(`captured [1-9]`).FindString(log) == "" {
			t.Fatalf("sniffer's output %q, want crank's requests captured (the test's premise)", log)
		}
		forged := regexp.MustCompile(`(?m)^(forged|replayed) .*: .*$`).FindAllString(log, -1)
		if len(forged) == 0 {
			t.Errorf("sniffer's output %q, want its replays", log)
		}
		var answered []string
		for _, l := range forged {
			if !strings.Contains(l, "401") {
				answered = append(answered, l)
			}
		}
		if len(answered) > 0 {
			t.Errorf("the sniffer's replays were not refused (401):\n%s\n(its whole output %q)", strings.Join(answered, "\n"), log)
		}
	})
}
