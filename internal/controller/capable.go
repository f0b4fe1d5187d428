package controller

import (
	"errors"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/termtext"
)

// ErrCannotRun marks a job that an agent cannot build or run, found from the agent's /info before
// any job starts: the scenario asks the lab for what it does not have.
var ErrCannotRun = errors.New("an agent cannot run a job")

// checkBuildable refuses, before anything starts, every job its agent cannot build: a .NET
// project on an agent without the SDK or the versions it asks for. Each refusal names the
// service, the job, the agent and what is missing.
func checkBuildable(ins []*instance) error {
	var errs []error
	for _, in := range ins {
		if in.job.Dotnet == nil {
			continue
		}
		if lacks := in.info.Dotnet.Lacks(*in.job.Dotnet); lacks != "" {
			errs = append(errs, fmt.Errorf("%w: service %q: job %q: the agent %s lacks %s; "+
				"an agent with the .NET SDK builds it (dotnet on its PATH, or crank-agent --dotnet-root DIR), "+
				"or run the scenario on Crankshaft's own apps: --%s.job plaintext (or json, fortunes, grpc)",
				ErrCannotRun, in.service, in.job.Name, in.url, lacks, in.service))
		}
	}
	return errors.Join(errs...)
}

// maxWhy bounds, in characters, an agent's reason shown in a refusal.
const maxWhy = 400

// checkPrograms refuses, before anything starts, every process job whose executable is a load
// tool its agent said it cannot find (api.Info.Missing), with the agent's why: a missing
// bombardier was once found only after the application was built and started.
func checkPrograms(ins []*instance) error {
	var errs []error
	for _, in := range ins {
		if in.job.InContainer() {
			continue
		}
		if why, missing := in.info.Missing[in.job.Executable]; missing {
			// The agent's words are untrusted: one line, no escapes, bounded.
			why = termtext.Clean(why)
			if r := []rune(why); len(r) > maxWhy {
				why = string(r[:maxWhy]) + "..."
			}
			errs = append(errs, fmt.Errorf("%w: service %q: job %q: the agent %s cannot run it: %s",
				ErrCannotRun, in.service, in.job.Name, in.url, why))
		}
	}
	return errors.Join(errs...)
}
