package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testCA makes a CA and a server certificate it signs for ip; it returns the PEM files.
func testCA(t *testing.T, ip string) (caFile, certFile, keyFile string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "crank test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "crank-agent"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP(ip)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("cert.pem", "CERTIFICATE", der), write("key.pem", "EC PRIVATE KEY", kb)
}

// TestHTTPSAgent: an agent on https with a token; crank trusts its CA given with --agent-ca and
// runs a scenario on it, and refuses it, naming the agent, without the CA.
func TestHTTPSAgent(t *testing.T) {
	caFile, certFile, keyFile := testCA(t, "127.0.0.5")
	ap := runAgent(t, nil, fmt.Sprintf("https://127.0.0.5:%d", freePort(t)), "--cert", certFile, "--key", keyFile, "--token", testToken)
	pool := x509.NewCertPool()
	if b, err := os.ReadFile(caFile); err != nil || !pool.AppendCertsFromPEM(b) {
		t.Fatalf("CA: %v", err)
	}
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
