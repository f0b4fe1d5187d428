package netguard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestMetadataRefusedDirectAndAfterRedirect: a URL a configuration names, or a server's redirect,
// cannot make crank fetch the cloud's instance metadata (the machine's credentials), on any
// spelling of its address; other addresses, loopback and private ones included, are fetched
// (issue 25, third audit, 2).
func TestMetadataRefusedDirectAndAfterRedirect(t *testing.T) {
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			_, _ = w.Write([]byte("ok"))
			return
		}
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/iam/security-credentials/", http.StatusFound)
	}))
	defer redirect.Close()
	client := Client(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, u := range []string{
		redirect.URL + "/redirect",
		"http://169.254.169.254/latest/meta-data/",
		"http://[::ffff:169.254.169.254]/latest/meta-data/",
		"http://[fe80::1]/",
		"http://[fd00:ec2::254]/latest/meta-data/",
		"http://100.100.100.200/latest/meta-data/",
		"http://metadata.google.internal./computeMetadata/v1/",
		"http://0.0.0.0:80/",
	} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET %s: %s, want it refused", u, resp.Status)
			continue
		}
		if !strings.Contains(err.Error(), "netguard: not") {
			t.Errorf("GET %s: %v, want netguard's refusal", u, err)
		}
	}
	resp, err := client.Get(redirect.URL + "/ok")
	if err != nil {
		t.Fatalf("GET loopback: %v, want it fetched", err)
	}
	resp.Body.Close()
	for _, a := range []string{"10.0.0.1", "192.168.1.1", "127.0.0.1", "::1", "8.8.8.8"} {
		if why, refused := Refused(netip.MustParseAddr(a)); refused {
			t.Errorf("%s refused (%s), want it allowed", a, why)
		}
	}
}
