package netguard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
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

// TestNumericHostsRefusedThroughAProxy: through a proxy crank does not resolve the URL's host;
// the guard compared it with dotted addresses only, so 169.254.169.254 written as inet_aton also
// reads it (2852039166, 0xa9fea9fe, octal, 169.254.43518) went to the proxy, which may read it
// as the metadata address. Such hosts are refused; names and dotted addresses go to the proxy.
func TestNumericHostsRefusedThroughAProxy(t *testing.T) {
	var (
		mu      sync.Mutex
		proxied []string
	)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		proxied = append(proxied, r.URL.Host)
		_, _ = w.Write([]byte("proxied"))
	}))
	defer proxy.Close()
	pu, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(pu)
	client := &http.Client{Transport: guarded{tr}, Timeout: 10 * time.Second}
	for _, host := range []string{"2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518", "0xa9.0xfe.0xa9.0xfe", "169.254.169.254"} {
		resp, err := client.Get("http://" + host + "/latest/meta-data/")
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET http://%s/ through a proxy: %s, want it refused", host, resp.Status)
		} else if !strings.Contains(err.Error(), "netguard: not") {
			t.Errorf("GET http://%s/: %v, want netguard's refusal", host, err)
		}
	}
	for _, host := range []string{"lab-app:5010", "10.0.0.1", "deadbeef.cafe", "1e100.net"} {
		resp, err := client.Get("http://" + host + "/")
		if err != nil {
			t.Errorf("GET http://%s/ through a proxy: %v, want it proxied", host, err)
			continue
		}
		resp.Body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(proxied) != 4 {
		t.Errorf("the proxy was asked for %q, want the four allowed hosts only", proxied)
	}
}
