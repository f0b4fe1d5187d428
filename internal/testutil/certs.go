package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Certs are the PEM files of a test CA and of a server certificate it signs, and a pool that
// trusts the CA.
type Certs struct {
	CAFile, CertFile, KeyFile string
	Pool                      *x509.CertPool
}

// WriteCerts makes a CA and a server certificate it signs for the IP addresses (127.0.0.1 when
// none), valid from an hour ago for a day, and writes ca.pem, cert.pem and key.pem (0600) into dir.
func WriteCerts(dir string, ips ...string) (Certs, error) {
	if len(ips) == 0 {
		ips = []string{"127.0.0.1"}
	}
	var addrs []net.IP
	for _, ip := range ips {
		a := net.ParseIP(ip)
		if a == nil {
			return Certs{}, fmt.Errorf("certificate for %q: not an IP address", ip)
		}
		addrs = append(addrs, a)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Certs{}, err
	}
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "crankshaft test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return Certs{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Certs{}, err
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: ips[0]},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IPAddresses: addrs,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return Certs{}, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Certs{}, err
	}
	c := Certs{CAFile: filepath.Join(dir, "ca.pem"), CertFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem")}
	for _, f := range []struct {
		path, typ string
		der       []byte
	}{{c.CAFile, "CERTIFICATE", caDER}, {c.CertFile, "CERTIFICATE", der}, {c.KeyFile, "EC PRIVATE KEY", kb}} {
		if err := os.WriteFile(f.path, pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der}), 0o600); err != nil {
			return Certs{}, err
		}
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Certs{}, err
	}
	c.Pool = x509.NewCertPool()
	c.Pool.AddCert(caCert)
	return c, nil
}

// TestCerts is WriteCerts into the test's temporary folder; an error fails the test.
func TestCerts(t testing.TB, ips ...string) Certs {
	t.Helper()
	c, err := WriteCerts(t.TempDir(), ips...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
