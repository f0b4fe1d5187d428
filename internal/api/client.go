package api

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/crankshaft/crankshaft/internal/reqsign"
)

// Client talks to one agent. The zero value is not usable: build it with NewClient.
type Client struct {
	base *url.URL
	key  []byte // the signing key derived from the token; nil: requests go unsigned
	http *http.Client
	// offset is the agent's clock minus ours (nanoseconds), learnt from its answers: requests are
	// signed with the agent's time.
	offset atomic.Int64
	bounds Bounds
}

// DefaultRequestTimeout bounds every call but uploads, answer included, so an unreachable or
// trickling agent fails fast.
const DefaultRequestTimeout = 8 * time.Second

// Option configures a Client.
type Option func(*Client) error

// DialAddr makes the client connect to addr (an IP and port) whatever the URL's host resolves to:
// the address whose token file was read (LocalAgent), so that a name resolving to several
// loopback addresses cannot send the request to another user's listener. Not through a proxy.
func DialAddr(addr string) Option {
	return func(c *Client) error {
		if addr == "" {
			return nil
		}
		base := c.http.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		t, ok := base.(*http.Transport)
		if !ok {
			return fmt.Errorf("agent %s: cannot pin its address %s on a %T", c.base, addr, base)
		}
		t = t.Clone()
		hostport := c.base.Host
		if c.base.Port() == "" {
			hostport = net.JoinHostPort(c.base.Hostname(), map[string]string{"http": "80", "https": "443"}[c.base.Scheme])
		}
		dial := t.DialContext
		if dial == nil {
			dial = (&net.Dialer{}).DialContext
		}
		t.Proxy = nil
		t.DialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
			if a != hostport {
				return nil, fmt.Errorf("agent %s: dialling %s, want only %s (pinned to %s)", c.base, a, hostport, addr)
			}
			return dial(ctx, network, addr)
		}
		hc := *c.http
		hc.Transport = t
		c.http = &hc
		return nil
	}
}

// WithBounds sets the answers' size bounds (DefaultBounds otherwise).
func WithBounds(b Bounds) Option {
	return func(c *Client) error { c.bounds = b; return nil }
}

// NewClient returns a client for the agent at baseURL ("http://10.0.0.2:5010"). token may be
// empty; requests are signed with it (reqsign), it is never sent. httpClient may be nil.
func NewClient(baseURL, token string, httpClient *http.Client, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agent URL %q: want http(s)://host:port", baseURL)
	}
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	hc := *httpClient
	hc.CheckRedirect = refuseRedirect(u)
	c := &Client{base: u, http: &hc, bounds: DefaultBounds}
	if token != "" {
		c.key = reqsign.Key(token)
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// refuseRedirect is the client's answer to an agent's redirect: an error naming the agent and
// where it pointed. An agent never redirects; one that does sent crank, its request body (a
// job's description, its environment) and, to a name under the agent's, its signature, to
// wherever it pointed: a pinned local agent's address, a machine of crank's network.
func refuseRedirect(base *url.URL) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("agent %s redirected crank to %s: crank does not follow an agent's redirects", base, req.URL.Redacted())
	}
}

// URL is the agent's base URL.
func (c *Client) URL() string { return c.base.String() }

// AgentError is a non-2xx answer from an agent.
type AgentError struct {
	URL        string
	StatusCode int
	Message    string
}

func (e *AgentError) Error() string {
	if e.StatusCode == http.StatusUnauthorized {
		return fmt.Sprintf("agent %s refused the request (401): %s; give the agent's token with --agent-token, --agent-token-file or CRANK_AGENT_TOKEN", e.URL, e.Message)
	}
	return fmt.Sprintf("agent %s: %d: %s", e.URL, e.StatusCode, e.Message)
}

// agentTime is now on the agent's clock, as far as the client knows it.
func (c *Client) agentTime() time.Time {
	return time.Now().Add(time.Duration(c.offset.Load()))
}

// learnClock takes the agent's clock from an answer's reqsign.TimeHeader, sent at sent; it tells
// whether the offset moved by more than a second.
func (c *Client) learnClock(resp *http.Response, sent time.Time) bool {
	ms, err := strconv.ParseInt(resp.Header.Get(reqsign.TimeHeader), 10, 64)
	if err != nil {
		return false
	}
	now := time.Now()
	off := time.UnixMilli(ms).Sub(sent.Add(now.Sub(sent) / 2))
	old := time.Duration(c.offset.Swap(int64(off)))
	return (off - old).Abs() > time.Second
}

// Health answers nil when the agent is up. It needs no token; it also learns the agent's clock.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, call{method: http.MethodGet, path: "/health", limit: c.bounds.Status})
}

// Info reads the agent's machine description.
func (c *Client) Info(ctx context.Context) (Info, error) {
	var i Info
	err := c.do(ctx, call{method: http.MethodGet, path: "/info", limit: c.bounds.Info, out: &i})
	return i, err
}

// Submit creates a job in state New and returns its id.
func (c *Client) Submit(ctx context.Context, j Job) (string, error) {
	var cr Created
	err := c.doJSON(ctx, http.MethodPost, "/jobs", j, &cr)
	return cr.ID, err
}

// Upload sends the job's source as a tar.gz stream.
func (c *Client) Upload(ctx context.Context, id string, tgz io.Reader) error {
	return c.UploadSource(ctx, id, "", tgz)
}

// UploadSource sends one of the job's named sources (Job.Sources) as a tar.gz stream; the name ""
// is the job's own source. A stream that is an io.ReadSeeker is hashed before it is sent; another
// carries its digest in a trailer.
func (c *Client) UploadSource(ctx context.Context, id, name string, tgz io.Reader) error {
	p := "/jobs/" + url.PathEscape(id) + "/source"
	if name != "" {
		p += "?name=" + url.QueryEscape(name)
	}
	return c.upload(ctx, p, tgz)
}

// UploadBuildFiles sends the job's build files as a tar.gz stream (paths inside the job's folder).
func (c *Client) UploadBuildFiles(ctx context.Context, id string, tgz io.Reader) error {
	return c.upload(ctx, "/jobs/"+url.PathEscape(id)+"/buildfiles", tgz)
}

// Start builds (if needed) and starts the job.
func (c *Client) Start(ctx context.Context, id string) error {
	return c.doJSON(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/start", nil, nil)
}

// Status reads the job's state and renews its lease.
func (c *Client) Status(ctx context.Context, id string) (JobStatus, error) {
	var s JobStatus
	err := c.doJSON(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id), nil, &s)
	return s, err
}

// StatusChange reads the job's status once its state is no longer from, or after wait (at most
// MaxStatusWait), whichever comes first: the agent holds the read meanwhile. An agent whose Info
// lacks StatusWait answers at once.
func (c *Client) StatusChange(ctx context.Context, id string, from JobState, wait time.Duration) (JobStatus, error) {
	var s JobStatus
	q := url.Values{"changedFrom": {string(from)}, "wait": {strconv.FormatInt(min(wait, MaxStatusWait).Milliseconds(), 10)}}
	err := c.doJSON(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id)+"?"+q.Encode(), nil, &s)
	return s, err
}

// Output reads the job's combined output from byte offset since: at most Bounds.Output bytes of
// it (the rest at the next read, from since plus what this one returned).
func (c *Client) Output(ctx context.Context, id string, since int64) (string, error) {
	var s string
	err := c.do(ctx, call{method: http.MethodGet, path: "/jobs/" + url.PathEscape(id) + "/output?since=" + strconv.FormatInt(since, 10),
		limit: c.bounds.Output, prefix: true, out: &s})
	return s, err
}

// Measurements reads the job's metadata and samples.
func (c *Client) Measurements(ctx context.Context, id string) (Measurements, error) {
	var m Measurements
	err := c.do(ctx, call{method: http.MethodGet, path: "/jobs/" + url.PathEscape(id) + "/measurements", limit: c.bounds.Measurements, out: &m})
	return m, err
}

// Stop ends the job's process group; the job ends Stopped (or Failed).
func (c *Client) Stop(ctx context.Context, id string) error {
	return c.doJSON(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/stop", nil, nil)
}

// Delete stops the job if needed and removes its folder.
func (c *Client) Delete(ctx context.Context, id string) error {
	return c.doJSON(ctx, http.MethodDelete, "/jobs/"+url.PathEscape(id), nil, nil)
}

// ProfileTimeout bounds closing a profiled window (the agent stops perf and reads its file) and
// one profile's download.
const ProfileTimeout = 3 * time.Minute

// StartProfiles opens the job's profiled window (Job.Collect, Job.GoProfiles).
func (c *Client) StartProfiles(ctx context.Context, id string) error {
	return c.doJSON(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/profiles/start", nil, nil)
}

// StopProfiles closes the job's profiled window and lists its profiles.
func (c *Client) StopProfiles(ctx context.Context, id string) ([]Profile, error) {
	var ps []Profile
	err := c.do(ctx, call{method: http.MethodPost, path: "/jobs/" + url.PathEscape(id) + "/profiles/stop", limit: c.bounds.Status, out: &ps, timeout: ProfileTimeout})
	return ps, err
}

// Profile downloads one of the job's profiles (pprof format), at most Bounds.Profile bytes.
func (c *Client) Profile(ctx context.Context, id, name string) ([]byte, error) {
	var b []byte
	err := c.do(ctx, call{method: http.MethodGet, path: "/jobs/" + url.PathEscape(id) + "/profiles/" + url.PathEscape(name), limit: c.bounds.Profile, out: &b, timeout: ProfileTimeout})
	return b, err
}
