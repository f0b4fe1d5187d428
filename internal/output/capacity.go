package output

import (
	"context"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/capacity"
)

// capacity prints the crank capacity search the result holds (its "capacity"): a search's steps,
// chart and answer, or a matrix's capacities side by side (each variant's search is written as it
// ends, as a search of its own).
func (p Params) capacity(_ context.Context, r Run) error {
	searches, matrix, err := capacity.Read(r.Result.Capacity)
	if err != nil {
		fmt.Fprintf(p.Stderr, "crank: %v\n", err)
		return err
	}
	if matrix {
		capacity.WriteVariants(p.Stdout, searches)
		return nil
	}
	capacity.WriteTable(p.Stdout, searches[0].Result)
	fmt.Fprintln(p.Stdout, searches[0].Summary())
	return nil
}
