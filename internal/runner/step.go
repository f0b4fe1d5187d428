package runner

import (
	"context"
	"time"

	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Stepper measures one pass of a scenario with the services before its load kept running from
// pass to pass: *controller.Stepper.
type Stepper interface {
	Step(ctx context.Context, services []controller.Service) (map[string]*results.JobResult, error)
}

// NoStepProbe is why a step is not probed when a plain run of its measurement would be: a probe is
// a run of its own at twice the connections, and a step's application is kept running for the
// next step.
const NoStepProbe = "a step of a search on a running application is not probed: the probe would be a run of its own"

// Step measures the prepared scenario as one step on st (crank capacity's: the application kept
// running, the load at the step's rate) and judges it as every measurement is judged (Judge): the
// diagnosis, the probe's note (--no-probe's, the diagnosis' reason to skip it, else NoStepProbe),
// crank's scripts on the step's results, the thresholds and the failed requests, all recorded in
// the result it returns. A step that failed returns no result and the stepper's error, or the
// scripts' (ErrScripts).
func (p *Prepared) Step(ctx context.Context, st Stepper) (*results.Result, error) {
	started := time.Now().UTC()
	jobs, err := st.Step(ctx, p.run.Services)
	if err != nil {
		return nil, err
	}
	res := &results.Result{StartTime: started, Scenario: p.run.Scenario, Profiles: p.run.Profiles,
		Variant:    variant(p.run.Properties, p.Resolved.Variant),
		JobResults: results.JobResults{Jobs: jobs, Properties: p.run.Properties}}
	if _, err := p.Judge(res, NoStepProbe); err != nil {
		return nil, err
	}
	return res, nil
}
