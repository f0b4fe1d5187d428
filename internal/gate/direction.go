package gate

import (
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

func fromMetadata(d string) Direction {
	switch d {
	case api.DirectionHigher:
		return HigherIsBetter
	case api.DirectionLower:
		return LowerIsBetter
	}
	return DirectionUnknown
}

// Direction says which way a measurement gets better.
type Direction int

// The directions. Unknown measurements are reported but never gated.
const (
	DirectionUnknown Direction = iota
	HigherIsBetter
	LowerIsBetter
)

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return "unknown"
}

// directionRules guess the direction of a figure the catalog does not know (a job's own statistic)
// and that its result file's metadata does not say. The first rule that matches decides: a text rule
// when its text occurs in the measurement's name or its metadata's short description, a unit rule
// when the metadata's unit is exactly its text. Order matters: "http/requests/errors" is an error
// count before anything else, and names decide before units.
var directionRules = [...]struct {
	text string
	unit bool
	dir  Direction
}{
	{"badresponses", false, LowerIsBetter},
	{"bad responses", false, LowerIsBetter},
	{"errors", false, LowerIsBetter},
	{"error-rate", false, LowerIsBetter},
	{"exception", false, LowerIsBetter},
	{"latency", false, LowerIsBetter},
	{"rps", false, HigherIsBetter},
	{"requests/sec", false, HigherIsBetter},
	{"cpu", false, LowerIsBetter},
	{"memory", false, LowerIsBetter},
	{"working-set", false, LowerIsBetter},
	{"working set", false, LowerIsBetter},
	{"build-time", false, LowerIsBetter},
	{"start-time", false, LowerIsBetter},
	{"contention", false, LowerIsBetter},
	{"req/s", true, HigherIsBetter},
	{"ms", true, LowerIsBetter},
	{"mb", true, LowerIsBetter},
}

// DirectionOf tells which way the measurement name gets better: as the catalog (internal/measure)
// says, or the result file's metadata md (when not nil) for a figure the catalog does not know;
// failing both, as directionRules guess from the name, description and unit.
func DirectionOf(name string, md *api.Metadata) Direction {
	if m, ok := measure.Default().Lookup(name); ok {
		return fromMetadata(m.Direction)
	}
	if md != nil && md.Direction != "" {
		return fromMetadata(md.Direction)
	}
	name = strings.ToLower(name)
	desc, unit := "", ""
	if md != nil {
		desc, unit = strings.ToLower(md.ShortDescription), strings.ToLower(md.Unit)
	}
	for _, r := range directionRules {
		if r.unit && unit == r.text ||
			!r.unit && (strings.Contains(name, r.text) || strings.Contains(desc, r.text)) {
			return r.dir
		}
	}
	return DirectionUnknown
}
