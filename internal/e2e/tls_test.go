package e2e

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestHTTPSAgent: an agent on https with a token; crank trusts its CA given with --agent-ca and
// runs a scenario on it, and refuses it, naming the agent, without the CA.
func TestHTTPSAgent(t *testing.T) {
	certs := testutil.TestCerts(t, "127.0.0.5")
	caFile, pool := certs.CAFile, certs.Pool
	ap := runAgent(t, nil, fmt.Sprintf("https://127.0.0.5:%d", freePort(t)), "--cert", certs.CertFile, "--key", certs.KeyFile, "--token", testToken)
	ap.waitHealthy(t, &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}, 15*time.Second)
	cfg := shellJobs(t, t.TempDir(), `
profiles:
  tls:
    agents:
      main:
        endpoints: [ "`+ap.url+`" ]
        aliases: [ application, load ]
`)
	args := []string{"--config", cfg, "--scenario", "shell", "--profile", "tls"}
	out := filepath.Join(t.TempDir(), "out.json")
	noSystemCA := "SSL_CERT_FILE=" + filepath.Join(t.TempDir(), "none.pem")
	r := crankEnv(t, time.Minute, []string{noSystemCA, "CRANK_AGENT_TOKEN=" + testToken}, append(args, "--agent-ca", caFile, "--json", out)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if eps := fmt.Sprint(readJobs(t, out)["load"].Environment["endpoints"]); eps != "["+ap.url+"]" {
		t.Errorf("load ran on %s", eps)
	}
	r = crankEnv(t, time.Minute, []string{noSystemCA, "CRANK_AGENT_TOKEN=" + testToken}, args...)
	if r.code == 0 {
		t.Fatal("crank trusted an agent certificate signed by an unknown CA")
	}
	mustContain(t, "stderr", r.stderr, ap.url, "certificate")
}
