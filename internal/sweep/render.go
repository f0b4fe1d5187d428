package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// WriteReport writes the sweep's tables: one per metric (each variant's mean ± CV and ratio to
// the baseline with the verdict of crank compare), the one-axis contrasts, the scaling curves
// with their charts, and each variant's diagnosis.
func (f *File) WriteReport(w io.Writer, opts gate.CompareOptions) error {
	metrics := f.Metrics()
	base := f.BaselineIndex()
	vsBase := make([]map[Metric]gate.Comparison, len(f.Variants))
	for i := range f.Variants {
		if i != base {
			vsBase[i] = f.Compare(base, i, metrics, opts)
		}
	}
	fmt.Fprintf(w, "sweep of %s: %d variants, %d of %d runs done; baseline %s\n", f.Scenario,
		len(f.Variants), f.Done, f.Total(), f.Baseline)
	for _, m := range metrics {
		fmt.Fprintf(w, "\n%s (%s)%s\n", termtext.Clean(m.Name), m.Service, f.unit(m))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "variant\tmean\t± CV\tn\tvs baseline\tverdict\tp\t")
		var unmeasured []string
		for i, v := range f.Variants {
			if why := f.notMeasured(i, m); why != "" {
				unmeasured = append(unmeasured, fmt.Sprintf("  %s: not measured in some runs: %s", v.Name, why))
			}
			s, ok := f.Summarize(i, m)
			if !ok {
				fmt.Fprintf(tw, "%s\t-\t\t0\t\t\t\t\n", v.Name)
				continue
			}
			ratio, verdict, p := "1.00x", "baseline", ""
			if i != base {
				ratio, verdict, p = cmpCells(vsBase[i][m])
			}
			fmt.Fprintf(tw, "%s\t%s\t%.1f%%\t%d\t%s\t%s\t%s\t\n", v.Name, f.format(m, s.Mean), 100*s.CV, s.N, ratio, verdict, p)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, line := range unmeasured {
			fmt.Fprintln(w, line)
		}
	}
	if err := f.writeContrasts(w, metrics, opts); err != nil {
		return err
	}
	f.writeScaling(w, opts)
	f.writeDiagnoses(w)
	return nil
}

// cmpCells renders a comparison as ratio, verdict and p-value cells.
func cmpCells(c gate.Comparison) (ratio, verdict, p string) {
	if c.Verdict == "" || c.Verdict == gate.VerdictMissing {
		return "-", "missing", ""
	}
	ratio = "inf"
	if !math.IsInf(c.Change, 0) {
		ratio = fmt.Sprintf("%.2fx", 1+c.Change)
	}
	verdict = string(c.Verdict)
	if c.Test != gate.TestNone {
		p = fmt.Sprintf("%.3f", c.PValue)
		if c.Verdict == gate.VerdictImproved || c.Verdict == gate.VerdictRegressed || c.Verdict == gate.VerdictChanged {
			verdict += " *"
		}
	}
	return ratio, verdict, p
}

func (f *File) writeContrasts(w io.Writer, metrics []Metric, opts gate.CompareOptions) error {
	cs := f.Contrasts()
	if len(cs) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\none axis at a time (crank compare %s#BASE %s#HEAD gives the same verdicts)\n", "FILE", "FILE")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "head vs base\tmetric\tratio\tverdict\tp")
	for _, c := range cs {
		cmps := f.Compare(c.Base, c.Head, metrics, opts)
		label := fmt.Sprintf("%s vs %s", f.Variants[c.Head].Value(c.Axis.Key), f.Variants[c.Base].Value(c.Axis.Key))
		label = c.Axis.Short() + " " + label
		if o := f.Variants[c.Head].Others(f.Axes, c.Axis.Key); o != "" {
			label += " @ " + o
		}
		for _, m := range metrics {
			cmp, ok := cmps[m]
			if !ok {
				continue
			}
			ratio, verdict, p := cmpCells(cmp)
			fmt.Fprintf(tw, "%s\t%s (%s)\t%s\t%s\t%s\n", label, m.Name, m.Service, ratio, verdict, p)
			label = ""
		}
	}
	return tw.Flush()
}

func (f *File) writeScaling(w io.Writer, opts gate.CompareOptions) {
	curves := f.Curves(opts)
	for _, c := range curves {
		title := "scaling over " + c.Axis.Key
		if c.Others != "" {
			title += " @ " + c.Others
		}
		fmt.Fprintf(w, "\n%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "cpuSet\tcores\tRPS\tefficiency\tgain\t")
		for _, p := range c.Points {
			gain := ""
			if p.HasGain {
				r, v, _ := cmpCells(p.Gain)
				gain = r + " " + v
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f%%\t%s\t\n", f.Variants[p.Variant].Value(c.Axis.Key), p.Cores,
				results.Format(p.RPS, "n0"), 100*p.Efficiency, gain)
		}
		_ = tw.Flush()
		if text := c.Conclusion(); text != "" {
			fmt.Fprintln(w, text)
		}
		if ch := c.Chart(); ch != "" {
			fmt.Fprintln(w, ch)
		}
	}
	if len(curves) == 0 {
		if ch := f.VariantsChart(); ch != "" {
			fmt.Fprintf(w, "\n%s\n", ch)
		}
	}
}

func (f *File) writeDiagnoses(w io.Writer) {
	fmt.Fprintln(w, "\ndiagnosis")
	for _, v := range f.Variants {
		if v.Result == nil {
			fmt.Fprintf(w, "  %s: not run\n", v.Name)
			continue
		}
		var kinds []string
		for _, d := range v.Result.JobResults.Diagnostics {
			kinds = append(kinds, d.Kind+": "+d.Message)
		}
		if len(kinds) == 0 {
			kinds = []string{"nothing to report"}
		}
		fmt.Fprintf(w, "  %s: %s\n", v.Name, strings.Join(kinds, "\n    "))
	}
}

func cores(n int) string {
	if n == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%d cores", n)
}

// unit is " [unit]" from the metric's metadata.
func (f *File) unit(m Metric) string {
	if md := f.metadata(m); md != nil && md.Unit != "" {
		return " [" + md.Unit + "]"
	}
	return ""
}

func (f *File) format(m Metric, v float64) string {
	format := "n2"
	if md := f.metadata(m); md != nil && md.Format != "" {
		format = md.Format
	}
	return results.Format(v, format)
}

func (f *File) metadata(m Metric) *api.Metadata {
	for _, v := range f.Variants {
		if v.Result == nil || v.Result.JobResults.Jobs[m.Service] == nil {
			continue
		}
		for i, md := range v.Result.JobResults.Jobs[m.Service].Metadata {
			if md.Name == m.Name {
				return &v.Result.JobResults.Jobs[m.Service].Metadata[i]
			}
		}
	}
	return nil
}

// notMeasured is why some run of variant i could not measure m ("" when every run did or none said).
func (f *File) notMeasured(i int, m Metric) string {
	r := f.Variants[i].Result
	if r == nil || r.JobResults.Jobs[m.Service] == nil {
		return ""
	}
	return termtext.Clean(r.JobResults.Jobs[m.Service].NotMeasured[m.Name]) // an agent's reason, printed
}
