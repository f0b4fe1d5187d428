package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client talks to one agent. The zero value is not usable: build it with NewClient.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// DefaultRequestTimeout bounds every call but uploads, so an unreachable agent fails fast.
const DefaultRequestTimeout = 8 * time.Second

// NewClient returns a client for the agent at baseURL ("http://10.0.0.2:5010"). token may be empty.
// httpClient may be nil (a client with DefaultRequestTimeout per call is used).
func NewClient(baseURL, token string, httpClient *http.Client) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agent URL %q: want http(s)://host:port", baseURL)
	}
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	return &Client{base: u, token: token, http: httpClient}, nil
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
		return fmt.Sprintf("agent %s refused the request (401): %s; give the agent's token with --agent-token or CRANK_AGENT_TOKEN", e.URL, e.Message)
	}
	return fmt.Sprintf("agent %s: %d: %s", e.URL, e.StatusCode, e.Message)
}

func (c *Client) do(ctx context.Context, method, path string, body io.Reader, contentType string, timeout time.Duration, out any) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, body)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("agent %s did not answer %s %s within %s: %w", c.base, method, path, timeout, err)
		}
		return fmt.Errorf("agent %s: %s %s: %w", c.base, method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var eb ErrorBody
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(raw, &eb) != nil || eb.Error == "" {
			eb.Error = strings.TrimSpace(string(raw))
		}
		return &AgentError{URL: c.base.String(), StatusCode: resp.StatusCode, Message: eb.Error}
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if s, ok := out.(*string); ok {
		raw, err := io.ReadAll(resp.Body)
		*s = string(raw)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("agent %s: %s %s: bad answer: %w", c.base, method, path, err)
	}
	return nil
}

func (c *Client) doJSON(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	ct := ""
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body, ct = bytes.NewReader(b), "application/json"
	}
	return c.do(ctx, method, path, body, ct, DefaultRequestTimeout, out)
}

// Health answers nil when the agent is up. It needs no token.
func (c *Client) Health(ctx context.Context) error {
	return c.doJSON(ctx, http.MethodGet, "/health", nil, nil)
}

// Info reads the agent's machine description.
func (c *Client) Info(ctx context.Context) (Info, error) {
	var i Info
	err := c.doJSON(ctx, http.MethodGet, "/info", nil, &i)
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
// is the job's own source.
func (c *Client) UploadSource(ctx context.Context, id, name string, tgz io.Reader) error {
	p := "/jobs/" + url.PathEscape(id) + "/source"
	if name != "" {
		p += "?name=" + url.QueryEscape(name)
	}
	return c.do(ctx, http.MethodPut, p, tgz, "application/gzip", 0, nil)
}

// UploadBuildFiles sends the job's build files as a tar.gz stream (paths inside the job's folder).
func (c *Client) UploadBuildFiles(ctx context.Context, id string, tgz io.Reader) error {
	return c.do(ctx, http.MethodPut, "/jobs/"+url.PathEscape(id)+"/buildfiles", tgz, "application/gzip", 0, nil)
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

// Output reads the job's combined output from byte offset since.
func (c *Client) Output(ctx context.Context, id string, since int64) (string, error) {
	var s string
	err := c.do(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id)+"/output?since="+strconv.FormatInt(since, 10), nil, "", DefaultRequestTimeout, &s)
	return s, err
}

// Measurements reads the job's metadata and samples.
func (c *Client) Measurements(ctx context.Context, id string) (Measurements, error) {
	var m Measurements
	err := c.doJSON(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id)+"/measurements", nil, &m)
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
