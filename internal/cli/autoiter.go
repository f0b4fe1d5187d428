package cli

import "github.com/crankshaft/crankshaft/internal/runner"

// --iterations auto's defaults and floor (internal/run's).
const (
	DefaultPrecision     = runner.DefaultPrecision
	DefaultMaxIterations = runner.DefaultMaxIterations
	MinAutoIterations    = runner.MinAutoIterations
)

// autoIterations is --iterations auto: repeat until the 95 % confidence interval of the headline
// figure's mean is within precision of it (relative), or max iterations.
type autoIterations struct {
	on                   bool
	precision            float64
	max                  int
	precisionSet, maxSet bool
}
