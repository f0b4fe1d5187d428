package h2load

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/drivers/drivertest"
)

func FuzzParse(f *testing.F) { drivertest.Fuzz(f, Parser{}) }
