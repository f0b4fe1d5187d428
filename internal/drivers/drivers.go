// Package drivers defines how a load generator's output becomes measurements. Each tool has its
// own package (drivers/wrk, drivers/bombardier, ...) implementing Parser; drivers/registry builds
// the name -> parser table the agent uses.
package drivers

import "io"

// Parser turns a tool's complete output into summary values keyed by measurement name
// (names and units as in internal/measure). Parse is a pure function of its input.
type Parser interface {
	// Name is the value of a job's `parser` key ("wrk").
	Name() string
	// Files are helper files the tool needs in the job's folder, by relative path
	// (wrk's scripts/pipeline.lua). May be nil.
	Files() map[string][]byte
	// Parse reads the tool's output. It returns an error that says what was wrong when the output
	// is not a successful run (the tool's own error message where it printed one).
	Parse(r io.Reader) (map[string]float64, error)
}
