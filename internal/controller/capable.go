package controller

import (
	"errors"
	"fmt"
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
