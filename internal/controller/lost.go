package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
)

// DefaultGeneratorSilence is how long a generator of a split load may go unheard before the run
// fails naming it (Options.GeneratorSilence): short, so that the run fails within 5 s of losing
// one (docs/DISTRIBUTED.md).
const DefaultGeneratorSilence = 3 * time.Second

// GeneratorLost is the error of a run that lost one generator of a load split across endpoints:
// its job failed (the generator died) or its agent stopped answering. The run fails naming it;
// the other generators' figures are kept.
type GeneratorLost struct {
	Service, Endpoint string
	Why               string
	in                *instance
}

func (e *GeneratorLost) Error() string {
	return fmt.Sprintf("service %q: the generator on %s was lost: %s", e.Service, e.Endpoint, e.Why)
}

// keepsFigures tells whether a run that failed with err keeps the figures it measured: a lost or
// implausible generator fails the run, while the others' figures are written.
func keepsFigures(err error) bool {
	gl, ip := (*GeneratorLost)(nil), (*ImplausiblePart)(nil)
	return errors.As(err, &gl) || errors.As(err, &ip)
}

// lost wraps the failure of a split load's generator as GeneratorLost; any other instance's
// failure is returned as it is.
func lost(in *instance, err error) error {
	if err == nil || in.share == nil {
		return err
	}
	return &GeneratorLost{Service: in.service, Endpoint: in.url, Why: err.Error(), in: in}
}

// EmbeddedAgentSilence is how long the agent inside crank may go unheard: it cannot be lost
// while crank runs, so its silence means a starved machine, not a lost agent (`crank capacity` at
// a load average of 12 once failed on "agent http://127.0.0.1:37777 has not answered for 15s",
// its own). Still bounded, should the embedded agent be wedged.
const EmbeddedAgentSilence = 2 * time.Minute

// silenceOf is how long the instance's agent may go unheard.
func (c *Controller) silenceOf(in *instance) time.Duration {
	silence := c.opts.AgentSilence
	if c.embeddedURL != "" && in.url == c.embeddedURL {
		silence = max(silence, EmbeddedAgentSilence)
	}
	if in.share != nil {
		return min(silence, c.opts.GeneratorSilence)
	}
	return silence
}

// readTimeout bounds a read of the instance's live figures or output: half its agent's silence,
// at most AgentSilence/2. The embedded agent's longer silence is for its polls; a read that waited
// it would hold up the other agents' polls, and their leases.
func (c *Controller) readTimeout(in *instance) time.Duration {
	return min(c.opts.AgentSilence, c.silenceOf(in)) / 2
}

// withoutLost stops the other jobs of a run that lost a generator and collects what they
// measured, as an interrupted run does (their figures are partial), then records the lost one
// among the load's generators with why it has no figures.
func (c *Controller) withoutLost(ctx context.Context, services []Service, all []*instance, gl *GeneratorLost) map[string]*results.JobResult {
	rest := slices.DeleteFunc(slices.Clone(all), func(in *instance) bool { return in == gl.in })
	jobs := c.salvage(ctx, services, rest)
	if jr := jobs[gl.Service]; jr != nil {
		jr.Generators = append(jr.Generators, results.Generator{Endpoint: gl.Endpoint, Failed: gl.Why})
	}
	return jobs
}
