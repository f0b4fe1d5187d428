package controller

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

func TestSortByCatalog(t *testing.T) {
	md := []api.Metadata{{Name: "zz/unknown"}, {Name: measure.LockContention}, {Name: "aa/unknown"}, {Name: measure.RPS}, {Name: measure.CPU}}
	sortByCatalog(md)
	want := []string{measure.CPU, measure.RPS, measure.LockContention, "zz/unknown", "aa/unknown"}
	for i, m := range md {
		if m.Name != want[i] {
			t.Fatalf("order %v, want %v", md, want)
		}
	}
}
