package agent

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/reqsign"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// captured is a request as it crossed the wire: what a sniffer on the network reads.
type captured struct {
	method, url string
	header      http.Header
	body        []byte
}

// recorder keeps every request its client sends.
type recorder struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	reqs []captured
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, captured{req.Method, req.URL.String(), req.Header.Clone(), body})
	r.mu.Unlock()
	return r.rt.RoundTrip(req)
}

// last is the last request sent to a path ending in suffix.
func (r *recorder) last(t *testing.T, method, suffix string) captured {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.reqs) - 1; i >= 0; i-- {
		if r.reqs[i].method == method && strings.HasSuffix(r.reqs[i].url, suffix) {
			return r.reqs[i]
		}
	}
	t.Fatalf("no %s ...%s captured", method, suffix)
	return captured{}
}

// send replays c, changed by edit, and returns the status and the agent's error.
func send(t *testing.T, c captured, edit func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(c.method, c.url, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = c.header.Clone()
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// signedAgent is a test agent whose client's requests are recorded.
func signedAgent(t *testing.T, opts Options) (*testAgent, *recorder, string) {
	t.Helper()
	ta := newTestAgent(t, opts)
	rec := &recorder{rt: http.DefaultTransport}
	c, err := api.NewClient(ta.c.URL(), ta.Token(), &http.Client{Transport: rec})
	if err != nil {
		t.Fatal(err)
	}
	ta.c = c
	return ta, rec, ta.c.URL()
}

// TestCapturedRequestReplayRefused: HIGH 1's sniffer read the bearer token off crank's polls.
// Now what it reads is a signed request: sent again as it was, the agent refuses it.
func TestCapturedRequestReplayRefused(t *testing.T) {
	ta, rec, _ := signedAgent(t, Options{})
	if _, err := ta.c.Info(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := rec.last(t, http.MethodGet, "/info")
	if a := got.header.Get("Authorization"); strings.Contains(a, ta.Token()) || !strings.HasPrefix(a, reqsign.Scheme+" ") {
		t.Fatalf("Authorization %q: want a %s signature without the token", a, reqsign.Scheme)
	}
	if code, msg := send(t, got, nil); code != http.StatusUnauthorized || !strings.Contains(msg, "already seen") {
		t.Errorf("replayed GET /info: %d %s, want 401 already seen", code, msg)
	}
}

// TestChangedRequestRefused: a captured POST /jobs with its body, method or path changed (and a
// fresh nonce, so that only the change can be the reason) is refused.
func TestChangedRequestRefused(t *testing.T) {
	ta, rec, _ := signedAgent(t, Options{})
	if _, err := ta.c.Submit(t.Context(), api.Job{Name: "x", Executable: "/bin/true"}); err != nil {
		t.Fatal(err)
	}
	got := rec.last(t, http.MethodPost, "/jobs")
	fresh := func(req *http.Request) { // another nonce, the same MAC: only a change could pass now
		a := req.Header.Get("Authorization")
		i := strings.Index(a, "n=") + 2
		req.Header.Set("Authorization", a[:i]+"00"+a[i+2:])
	}
	for name, edit := range map[string]func(*http.Request){
		"nonce": fresh,
		"body": func(req *http.Request) {
			fresh(req)
			b := []byte(`{"name":"x","executable":"sh","arguments":"-c id"}`)
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		},
		"method": func(req *http.Request) { fresh(req); req.Method = http.MethodPut },
		"path":   func(req *http.Request) { fresh(req); req.URL.Path = "/jobs/" },
		"query":  func(req *http.Request) { fresh(req); req.URL.RawQuery = "x=1" },
	} {
		code, msg := send(t, got, edit)
		if code != http.StatusUnauthorized || !strings.Contains(msg, "wrong signature") {
			t.Errorf("captured POST /jobs, %s changed: %d %s, want 401 wrong signature", name, code, msg)
		}
	}
}

// TestOldRequestRefused: a request signed 10 minutes ago (its nonce never seen) is refused.
func TestOldRequestRefused(t *testing.T) {
	ta, _, url := signedAgent(t, Options{})
	req, _ := http.NewRequest(http.MethodGet, url+"/jobs", nil)
	reqsign.Sign(req, ta.Token(), time.Now().Add(-10*time.Minute), nil)
	code, msg := send(t, captured{req.Method, req.URL.String(), req.Header, nil}, nil)
	if code != http.StatusUnauthorized || !strings.Contains(msg, "outside the agent's window") {
		t.Errorf("request signed 10 min ago: %d %s, want 401 outside the window", code, msg)
	}
	req, _ = http.NewRequest(http.MethodGet, url+"/jobs", nil)
	reqsign.Sign(req, ta.Token(), time.Now(), nil)
	if code, msg := send(t, captured{req.Method, req.URL.String(), req.Header, nil}, nil); code != http.StatusOK {
		t.Errorf("request signed now: %d %s, want 200", code, msg)
	}
}

// TestSkewedAgentClockStillWorks: an agent whose clock is 10 minutes ahead (or behind) is
// signed for with its own time, learnt from /health or from its first 401.
func TestSkewedAgentClockStillWorks(t *testing.T) {
	for _, skew := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
		ta, _, url := signedAgent(t, Options{Clock: func() time.Time { return time.Now().Add(skew) }})
		if _, err := ta.c.Info(t.Context()); err != nil { // no /health first: the 401 tells the time
			t.Errorf("skew %s, first call: %v", skew, err)
		}
		c, err := api.NewClient(url, ta.Token(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Health(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Submit(t.Context(), api.Job{Name: "x", Executable: "/bin/true"}); err != nil {
			t.Errorf("skew %s, after /health: %v", skew, err)
		}
	}
}

// TestBearerRefusedUnlessAccepted: the token itself is refused as a bearer token, unless the agent
// was started with AcceptBearer (--accept-bearer), and a wrong one is refused then too.
func TestBearerRefusedUnlessAccepted(t *testing.T) {
	for _, accept := range []bool{false, true} {
		ta, _, url := signedAgent(t, Options{AcceptBearer: accept})
		for tok, want := range map[string]int{ta.Token(): map[bool]int{false: 401, true: 200}[accept], "wrong": 401} {
			code, msg := send(t, captured{"GET", url + "/jobs", http.Header{"Authorization": {"Bearer " + tok}}, nil}, nil)
			if code != want {
				t.Errorf("accept %v, bearer %q: %d %s, want %d", accept, tok, code, msg, want)
			}
		}
	}
}

// streamed hides a reader's Seek: the client sends it with its digest in a trailer.
type streamed struct{ io.Reader }

// TestStreamedUploadCheckedAtItsEnd: an upload whose digest comes in a trailer is extracted only
// when the trailer signs what was sent; one whose trailer does not is refused (401) and what it
// extracted removed.
func TestStreamedUploadCheckedAtItsEnd(t *testing.T) {
	ta, _, url := signedAgent(t, Options{})
	submit := func() string {
		id, err := ta.c.Submit(t.Context(), api.Job{Name: "x", Executable: "/bin/true", Source: &api.Source{LocalFolder: "src"}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := submit()
	if err := ta.c.Upload(t.Context(), id, streamed{testutil.TarGz(t, testutil.TarFile("good", "x", 0o644))}); err != nil {
		t.Fatalf("streamed upload: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ta.opts.Dir, id, "good")); err != nil {
		t.Errorf("streamed upload not extracted: %v", err)
	}

	id = submit()
	body, _ := io.ReadAll(testutil.TarGz(t, testutil.TarFile("planted", "x", 0o644)))
	key := reqsign.Key(ta.Token())
	req, _ := http.NewRequest(http.MethodPut, url+"/jobs/"+id+"/source", streamed{bytes.NewReader(body)})
	auth, mac := reqsign.Authorization(key, req.Method, req.URL.RequestURI(), time.Now(), reqsign.InTrailer)
	req.Header.Set("Authorization", auth)
	req.ContentLength = -1
	req.Trailer = http.Header{reqsign.BodyTrailer: {reqsign.BodyTrailerValue(key, mac, reqsign.BodyDigest([]byte("another body")))}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(msg), "does not match its signed digest") {
		t.Errorf("upload with a wrong trailer: %d %s, want 401", resp.StatusCode, msg)
	}
	if _, err := os.Stat(filepath.Join(ta.opts.Dir, id, "planted")); !os.IsNotExist(err) {
		t.Errorf("a refused upload's file: %v, want it removed", err)
	}
}

// TestLargeBodyAnswers413: a signed request whose body is past the agent's bound for a job's
// description (a 5 MB environment value) is answered 413, not 400 nor 401.
func TestLargeBodyAnswers413(t *testing.T) {
	ta, _, url := signedAgent(t, Options{})
	body := []byte(`{"name":"x","executable":"/bin/true","environmentVariables":{"BIG":"` + strings.Repeat("x", 5<<20) + `"}}`)
	req, _ := http.NewRequest(http.MethodPost, url+"/jobs", nil)
	reqsign.Sign(req, ta.Token(), time.Now(), body)
	code, msg := send(t, captured{req.Method, req.URL.String(), req.Header, body}, nil)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "larger than 4194304 bytes") {
		t.Errorf("POST /jobs of 5 MB: %d %.200s, want 413", code, msg)
	}
}

// TestReplayToRestartedAgentRefused: an agent forgets the nonces it saw when it restarts; a request
// captured before the restart (here, by an agent sharing the token that starts after the capture)
// is refused as signed before the agent started.
func TestReplayToRestartedAgentRefused(t *testing.T) {
	ta, rec, _ := signedAgent(t, Options{Token: "shared-token"})
	if _, err := ta.c.Info(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := rec.last(t, http.MethodGet, "/info")
	_, _, restarted := signedAgent(t, Options{Token: "shared-token"})
	got.url = restarted + "/info"
	if code, msg := send(t, got, nil); code != http.StatusUnauthorized || !strings.Contains(msg, "signed before the agent started") {
		t.Errorf("a capture replayed to an agent started after it: %d %s, want 401", code, msg)
	}
}
