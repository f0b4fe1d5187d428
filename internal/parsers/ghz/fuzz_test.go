package ghz

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/parsers/parsertest"
)

func FuzzParse(f *testing.F) { parsertest.Fuzz(f, Parser{}) }
