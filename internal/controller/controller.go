// Package controller runs a resolved scenario on agents: it submits each service's job, uploads
// its source, starts it and waits until it is ready, runs the load services to completion, then
// stops everything, collects the measurements and turns them into results.
package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/pack"
	"github.com/crankshaft/crankshaft/internal/progress"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// Service is one service of a resolved scenario.
type Service struct {
	Name string
	Job  api.Job
	// Endpoints are agent URLs; empty runs the service on the embedded local agent.
	Endpoints []string
	// Shares, for a load on several endpoints, are each endpoint's part of it (in Endpoints'
	// order): its job, rendered with its share of the split variables. Nil: Job on every one.
	Shares []Share
	// Fetched names the endpoints that only configurations fetched from a URL name, each with
	// such a file's URL (config.Resolved.FetchedOnly): they get no token but one scoped to them.
	Fetched map[string]string
}

// Share is one endpoint's part of a load split across endpoints (config.Share).
type Share struct {
	Weight    float64
	Variables map[string]int
	Job       api.Job
}

// EmbeddedStarter starts an agent inside this process and returns its URL and how to stop it.
type EmbeddedStarter func(ctx context.Context) (url string, stop func(context.Context) error, err error)

// Options configure a Controller.
type Options struct {
	Logger *slog.Logger
	// Progress receives one human-readable line per step (nil: discarded).
	Progress io.Writer
	// Steps receives the routine step lines of each run (uploading, starting a job, done, which
	// iteration), a subset of what Progress would (nil: Progress). Commands that say their own
	// progress round by round (crank bisect, compare --base --head) drop them: a bisect printed
	// 396 lines of them. Notes and warnings always go to Progress.
	Steps io.Writer
	// JobOutput receives the lines of output the scenario asked to see (options.displayOutput,
	// options.displayBuild), prefixed with the service (nil: Progress). crank --quiet hides the
	// progress, not what the scenario asked to display.
	JobOutput io.Writer
	// Status, when set, receives the run's status on every poll (phase, elapsed and remaining
	// time, live requests/s and CPU).
	Status func(progress.Status)
	// AgentToken signs for every agent but those ScopedTokens names and those only fetched
	// configurations name (Service.Fetched) unless TokenFor names them; with none, an agent on
	// this machine's loopback is signed for with the token it keeps in its token file
	// (api.LocalToken), under the same rule.
	AgentToken string
	// ScopedTokens sign for their endpoints only (api.EndpointKey -> token).
	ScopedTokens map[string]string
	// TokenFor are the endpoints (api.EndpointKey) only fetched configurations name that
	// AgentToken (or a local token file) may sign for all the same.
	TokenFor map[string]bool
	// EmbeddedToken is the token of the agent StartEmbedded starts.
	EmbeddedToken string
	HTTPClient    *http.Client
	// Resolver looks up the agents' host names, to pin a name that resolves to several loopback
	// addresses to the one where the agent listens (api.LoopbackAddr); nil: net.DefaultResolver.
	Resolver api.Resolver
	// StartEmbedded is called at most once, when a service has no endpoint.
	StartEmbedded EmbeddedStarter
	// Exclude names the result files (this run's outputs, earlier runs' as recorded) that are
	// never uploaded as source nor part of a build's cache key.
	Exclude pack.Exclude
	// OutputDir, when set, receives each job's build log and output before the job is deleted.
	OutputDir string
	// ProfileDir, when set, receives the profiles of jobs with collect or goProfiles as pprof
	// files, SERVICE[-N][.iteration-I].NAME.pb.gz (--output-dir, else --json's folder).
	ProfileDir string
	// Wrote, when set, is told each file crank wrote there (its ledger of result files).
	Wrote func(paths ...string)
	// PollInterval between status reads (default 250 ms).
	PollInterval time.Duration
	// AgentSilence is how long an agent may fail to answer before the run fails naming it (default 10 s).
	AgentSilence time.Duration
	// GeneratorSilence is how long a generator of a split load may go unheard before the run
	// fails naming it (default DefaultGeneratorSilence; never more than AgentSilence).
	GeneratorSilence time.Duration
	// StopTimeout bounds the wait for stopped jobs (default 15 s).
	StopTimeout time.Duration
	// BuildNoteEvery is how often a build in progress is said in the progress lines when there is
	// no Status (default 5 s).
	BuildNoteEvery time.Duration
}

// Default timings.
const (
	DefaultPollInterval = 250 * time.Millisecond
	DefaultAgentSilence = 10 * time.Second
	DefaultStopTimeout  = 15 * time.Second
	DefaultBuildNote    = 5 * time.Second
)

// Controller drives agents. It keeps one client per agent URL and the embedded agent, if started.
type Controller struct {
	opts Options
	log  *slog.Logger

	mu            sync.Mutex
	agents        map[string]agentConn
	embeddedURL   string
	embeddedStop  func(context.Context) error
	embeddedError error
}

// New returns a Controller; call Close when done.
func New(opts Options) *Controller {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if opts.Steps == nil {
		opts.Steps = opts.Progress
	}
	if opts.JobOutput == nil {
		opts.JobOutput = opts.Progress
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.AgentSilence <= 0 {
		opts.AgentSilence = DefaultAgentSilence
	}
	if opts.GeneratorSilence <= 0 {
		opts.GeneratorSilence = DefaultGeneratorSilence
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = DefaultStopTimeout
	}
	if opts.BuildNoteEvery <= 0 {
		opts.BuildNoteEvery = DefaultBuildNote
	}
	return &Controller{opts: opts, log: opts.Logger, agents: map[string]agentConn{}}
}

// Close stops the embedded agent, if one was started.
func (c *Controller) Close(ctx context.Context) error {
	c.mu.Lock()
	stop := c.embeddedStop
	c.embeddedStop = nil
	c.mu.Unlock()
	if stop == nil {
		return nil
	}
	return stop(ctx)
}

// What it prints may hold an agent's or a job's text (a job's output, a warning, an error): it is
// cleaned (termtext.Clean), so an escape sequence or a newline in it cannot act or forge a line.
func (c *Controller) progress(service, format string, args ...any) {
	serviceLine(c.opts.Progress, service, fmt.Sprintf(format, args...))
}

// step prints a routine step line (Options.Steps), cleaned as progress's are.
func (c *Controller) step(service, format string, args ...any) {
	serviceLine(c.opts.Steps, service, fmt.Sprintf(format, args...))
}

// serviceLine writes text to w as a line of service's, cleaned (termtext.Clean).
func serviceLine(w io.Writer, service, text string) {
	fmt.Fprintf(w, "[%s] %s\n", service, termtext.Clean(text))
}

// finite moves the figures of jobs that are not finite numbers to their NotMeasured and says so
// (results.FiniteJobs).
func (c *Controller) finite(jobs map[string]*results.JobResult) {
	for _, note := range results.FiniteJobs(jobs) {
		fmt.Fprintf(c.opts.Progress, "warning: %s\n", termtext.Clean(note))
	}
}

// endpoints returns the agent URLs of a service, starting the embedded agent when it has none.
func (c *Controller) endpoints(ctx context.Context, s Service) ([]string, error) {
	if len(s.Endpoints) > 0 {
		return s.Endpoints, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.embeddedURL == "" && c.embeddedError == nil {
		if c.opts.StartEmbedded == nil {
			c.embeddedError = errors.New("no endpoint and no embedded agent")
		} else {
			// Not stopped by ctx: an interrupted run still reads what its jobs measured from
			// it; Close stops it.
			began := time.Now()
			c.embeddedURL, c.embeddedStop, c.embeddedError = c.opts.StartEmbedded(context.WithoutCancel(ctx))
			c.took("embedded agent started", began)
		}
	}
	if c.embeddedError != nil {
		return nil, fmt.Errorf("service %q: starting the embedded agent: %w", s.Name, c.embeddedError)
	}
	return []string{c.embeddedURL}, nil
}

// token is the token that signs for the agent at url and, for a local agent's token file, the
// address whose file it is (the client dials it, never the name again). An agent that only
// fetched configurations name (fetchedFrom, the URL of one) gets a token scoped to it or none
// (withheld).
func (c *Controller) token(ctx context.Context, url, fetchedFrom string) (token, addr string, withheld bool) {
	c.mu.Lock()
	embedded := url == c.embeddedURL
	c.mu.Unlock()
	key, _ := api.EndpointKey(url)
	if embedded {
		return c.opts.EmbeddedToken, "", false
	}
	if tok, ok := c.opts.ScopedTokens[key]; ok {
		return tok, "", false
	}
	if fetchedFrom != "" && !c.opts.TokenFor[key] {
		return "", "", true
	}
	if c.opts.AgentToken != "" {
		return c.opts.AgentToken, "", false
	}
	token, addr = api.LocalToken(ctx, url)
	return token, addr, false
}

// withheldHint says, for an agent that refused crank (401) and that crank sent no token because
// only a fetched configuration (fetchedFrom) names it (withheld), how to scope one to it.
func withheldHint(err error, url, fetchedFrom string, withheld bool) string {
	var ae *api.AgentError
	if !withheld || !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized {
		return ""
	}
	key, _ := api.EndpointKey(url)
	return fmt.Sprintf("; crank signs with no unscoped token (CRANK_AGENT_TOKEN, --agent-token, a token file's lone token or a local agent's) for an agent named only by a configuration fetched from a URL (%s): scope one to it with a line %q in --agent-token-file, or pass --agent-token-for %s",
		fetchedFrom, key+" TOKEN", key)
}

// agentConn is what the controller knows of one agent.
type agentConn struct {
	client *api.Client
	info   api.Info
	// offset is the agent's clock minus the controller's (0 when within measurement error).
	offset time.Duration
}

// client returns the agent at url, checking once that it answers and estimating its clock offset.
func (c *Controller) client(ctx context.Context, url, fetchedFrom string) (agentConn, error) {
	c.mu.Lock()
	ag, ok := c.agents[url]
	c.mu.Unlock()
	if ok {
		return ag, nil
	}
	token, addr, withheld := c.token(ctx, url, fetchedFrom)
	if addr == "" {
		var r api.Resolver = net.DefaultResolver
		if c.opts.Resolver != nil {
			r = c.opts.Resolver
		}
		lctx, cancel := context.WithTimeout(ctx, c.opts.AgentSilence) // a name server that never answers
		var err error
		addr, err = api.LoopbackAddr(lctx, url, r)
		cancel()
		if err != nil {
			return agentConn{}, err
		}
	}
	cl, err := api.NewClient(url, token, c.opts.HTTPClient, api.DialAddr(addr))
	if err != nil {
		return agentConn{}, err
	}
	hctx, cancel := context.WithTimeout(ctx, c.opts.AgentSilence)
	defer cancel()
	defer c.took("agent health and info read", time.Now(), "agent", url)
	if err := cl.Health(hctx); err != nil {
		return agentConn{}, fmt.Errorf("agent %s is unreachable: %w%s", url, err, unreachableHint(url, err))
	}
	sent := time.Now()
	info, err := cl.Info(hctx)
	if err != nil {
		return agentConn{}, fmt.Errorf("reading the agent's /info: %w%s", err, withheldHint(err, url, fetchedFrom, withheld)) // err names the agent
	}
	ag = agentConn{client: cl, info: info, offset: clockOffset(sent, time.Now(), info.Time)}
	if ag.offset != 0 {
		c.log.Info("agent clock offset", "agent", url, "offset", ag.offset)
	}
	note, err := clockNote(url, ag.offset, info.Time)
	if err != nil {
		return agentConn{}, err
	}
	if note != "" {
		fmt.Fprintln(c.opts.Progress, termtext.Clean(note))
	}
	c.mu.Lock()
	c.agents[url] = ag
	c.mu.Unlock()
	return ag, nil
}

// took logs at debug level (crank -v) how long a step of the run's start took since began: where
// the time from crank's start to the first request goes (docs/PERFORMANCE.md).
func (c *Controller) took(step string, began time.Time, attrs ...any) {
	c.log.Debug("took", append([]any{"step", step, "ms", time.Since(began).Milliseconds()}, attrs...)...)
}
