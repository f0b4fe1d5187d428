package results

import "github.com/crankshaft/crankshaft/internal/profiles"

// Profile is one profile an agent recorded of a service over an iteration's measured window
// (docs/PROFILES.md): where crank saved it, and its top functions.
type Profile struct {
	// Name is what it profiles: perf-cpu (collect), go-cpu, go-mutex, go-block (goProfiles).
	Name      string `json:"name"`
	Iteration int    `json:"iteration,omitempty"`
	Endpoint  string `json:"endpoint,omitempty"`
	// Path is the pprof file crank wrote (--output-dir, else beside --json); empty when none.
	Path string `json:"path,omitempty"`
	// Unit is the unit of Total and of the functions' values ("nanoseconds").
	Unit  string          `json:"unit,omitempty"`
	Total int64           `json:"total,omitempty"`
	Top   []profiles.Func `json:"top,omitempty"`
	Error string          `json:"error,omitempty"`
	// Data is the profile (pprof format) while the run is in memory.
	Data []byte `json:"-"`
}
