// Package registry builds the table of the load generator parsers the platform ships, keyed by the
// value of a job's `parser` key.
package registry

import (
	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/parsers/bombardier"
	"github.com/crankshaft/crankshaft/internal/parsers/builtin"
	"github.com/crankshaft/crankshaft/internal/parsers/ghz"
	"github.com/crankshaft/crankshaft/internal/parsers/h2load"
	"github.com/crankshaft/crankshaft/internal/parsers/wrk"
)

// Builtin returns a fresh map of every built-in parser by its Name: "wrk", "bombardier", "ghz",
// "h2load". The caller may add to it.
func Builtin() map[string]parsers.Parser {
	list := []parsers.Parser{wrk.Parser{}, bombardier.Parser{}, ghz.Parser{}, h2load.Parser{}, builtin.Parser{}}
	m := make(map[string]parsers.Parser, len(list))
	for _, p := range list {
		m[p.Name()] = p
	}
	return m
}
