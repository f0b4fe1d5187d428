package capacity

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Named is one search of a result file's "capacity": the file's own, or a variant's of a
// --matrix (whose file holds {"variants": [...]}).
type Named struct {
	Variant string `json:"variant,omitempty"`
	Result
}

// Read reads a result file's "capacity": one search, or a matrix's (matrix true) every variant's.
func Read(raw json.RawMessage) (searches []Named, matrix bool, err error) {
	var doc struct {
		Variants []Named `json:"variants"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, false, fmt.Errorf("capacity: %w", err)
	}
	if doc.Variants != nil {
		return doc.Variants, true, nil
	}
	var one Named
	if err := json.Unmarshal(raw, &one.Result); err != nil {
		return nil, false, fmt.Errorf("capacity: %w", err)
	}
	return []Named{one}, false, nil
}

// WriteVariants prints each variant's capacity beside the first's, with the knee's verdict; a
// variant whose search cannot tell gives its bracket, and no ratio.
func WriteVariants(w io.Writer, vs []Named) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintln(w, "capacity per variant (the first is the baseline):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tcapacity req/s\tvs baseline\tfailed at req/s\tat the knee\t")
	base := vs[0].Rate
	if vs[0].Inconclusive != "" {
		base = 0
	}
	for _, v := range vs {
		ratio, rate := "-", fmt.Sprintf("%.0f", v.Rate)
		if base > 0 && v.Rate > 0 && v.Inconclusive == "" {
			ratio = fmt.Sprintf("%.2fx", v.Rate/base)
		}
		if v.Inconclusive != "" {
			rate = fmt.Sprintf("cannot tell (%.0f-%.0f)", v.Rate, v.FailedAt)
		}
		kind := v.VerdictKind
		if kind == "" {
			kind = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%s\t\n", v.Variant, rate, ratio, v.FailedAt, kind)
	}
	_ = tw.Flush()
}
