package gate

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/stats"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// header is the table's column titles: one value column per file, then the comparison columns.
func (r Report) header() []string {
	h := append([]string{"metric", "unit"}, labels(r.Files)...)
	return append(h, "change", "verdict", "p", "95% CI of ratio")
}

// labels shortens file names to their base names without ".json" when that keeps them distinct.
func labels(files []string) []string {
	out := make([]string, len(files))
	seen := map[string]bool{}
	for i, f := range files {
		out[i] = strings.TrimSuffix(filepath.Base(f), ".json")
		if seen[out[i]] {
			return files
		}
		seen[out[i]] = true
	}
	return out
}

// cells renders a row; with several compared files the comparison cells list one entry per file,
// separated by " / ".
func (row Row) cells(verdict func(Verdict) string) []string {
	unit := row.Unit
	if unit == "" {
		unit = "-"
	}
	out := []string{row.Metric, unit, cellValue(row.Base, row.BasePresent, row.BaseNotMeasured, row.Format)}
	for _, c := range row.Compared {
		out = append(out, cellValue(c.Value, c.Present, c.NotMeasured, row.Format))
	}
	var change, verdicts, ps, cis []string
	for _, c := range row.Compared {
		change = append(change, formatChange(c))
		verdicts = append(verdicts, verdict(c.Verdict))
		ps = append(ps, formatP(c))
		cis = append(cis, formatCI(c))
	}
	join := func(xs []string) string { return strings.Join(xs, " / ") }
	out = append(out, join(change), join(verdicts), join(ps), join(cis))
	for i := range out { // a metric's name and a not-measured reason come from the agents
		out[i] = termtext.Clean(out[i])
	}
	return out
}

func cellValue(v float64, present bool, notMeasured, format string) string {
	switch {
	case !present && notMeasured != "":
		return "not measured: " + notMeasured
	case !present:
		return "-"
	}
	if format == "" {
		format = "n2"
	}
	return results.Format(v, format)
}

func formatChange(c Comparison) string {
	switch {
	case !c.Present:
		return "-"
	case math.IsInf(c.Change, 0):
		return fmt.Sprintf("%cinf", "+-"[boolIndex(c.Change < 0)])
	}
	return fmt.Sprintf("%+.2f%%", 100*c.Change)
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func formatP(c Comparison) string {
	switch {
	case c.Verdict == VerdictMissing, c.Verdict == VerdictNotMeasured:
		return "-"
	case c.Test == TestNone:
		return "threshold only"
	case c.PValue < 0.0001:
		return "<0.0001"
	}
	p := fmt.Sprintf("%.2g", c.PValue)
	if c.FellBack {
		p += " (welch)"
	}
	return p
}

func formatCI(c Comparison) string {
	if !c.HasCI {
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f]", c.CI.Low, c.CI.High)
}

// notes explains the verdicts the reader might misread.
func (r Report) notes() []string {
	var tested, thresholdOnly, welch bool
	for _, s := range r.Services {
		for _, row := range s.Rows {
			for _, c := range row.Compared {
				tested = tested || c.Test != TestNone
				thresholdOnly = thresholdOnly || (c.Present && row.BasePresent && c.Test == TestNone)
				welch = welch || c.FellBack
			}
		}
	}
	var notes []string
	if tested {
		notes = append(notes, fmt.Sprintf("p: two-sided Mann-Whitney U over the iterations; CI: 95%% bootstrap interval of mean/base mean (%d resamples, seeded).", stats.DefaultResamples))
	}
	if welch {
		notes = append(notes, fmt.Sprintf("(welch): too few iterations for Mann-Whitney U to reach %g; Welch's t-test decided.", r.Alpha))
	}
	if thresholdOnly {
		notes = append(notes, fmt.Sprintf("threshold only: fewer than %d iterations on a side, so no significance test; the verdict is by the threshold alone.", MinIterations))
	}
	return notes
}

func (r Report) summary() string {
	regs := r.Regressions()
	if len(regs) == 0 {
		return fmt.Sprintf("Result: no regression beyond %g%%.", 100*r.Threshold)
	}
	return fmt.Sprintf("Result: %d regression(s) beyond %g%%: %s.", len(regs), 100*r.Threshold, strings.Join(regs, ", "))
}

// WriteText writes the report as aligned text tables, one per service.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Comparing %s against %s: threshold %g%%, alpha %g\n", strings.Join(r.Files[1:], ", "), r.Files[0], 100*r.Threshold, r.Alpha)
	for _, s := range r.Services {
		fmt.Fprintf(&b, "\n[%s]\n", s.Service)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(r.header(), "\t"))
		for _, row := range s.Rows {
			fmt.Fprintln(tw, strings.Join(row.cells(func(v Verdict) string { return string(v) }), "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	b.WriteString("\n")
	for _, w := range r.Warnings { // they name the machines as their agents described them
		b.WriteString("warning: " + termtext.Clean(w) + "\n")
	}
	for _, n := range r.notes() {
		b.WriteString(termtext.Clean(n) + "\n")
	}
	b.WriteString(termtext.Clean(r.summary()) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as a pull-request comment.
func (r Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Performance comparison\n\n%s against %s: threshold %g%%, significance level %g.\n",
		codeList(r.Files[1:]), code(r.Files[0]), 100*r.Threshold, r.Alpha)
	head := r.header()
	for _, s := range r.Services {
		fmt.Fprintf(&b, "\n**%s**\n\n| %s |\n|", mdCell(s.Service), strings.Join(mapStrings(head, mdCell), " | "))
		for i := range head {
			b.WriteString(alignment(i, len(r.Files)))
		}
		b.WriteString("\n")
		for _, row := range s.Rows {
			cells := row.cells(mdVerdict)
			cells[0] = code(row.Metric)
			fmt.Fprintf(&b, "| %s |\n", strings.Join(mapStrings(cells, mdCellKeepCode), " | "))
		}
	}
	b.WriteString("\n")
	for _, w := range r.Warnings {
		b.WriteString(":warning: " + mdCell(w) + "<br>\n")
	}
	for _, n := range r.notes() {
		b.WriteString("<sub>" + mdCell(n) + "</sub><br>\n")
	}
	fmt.Fprintf(&b, "\n**%s**\n", mdCell(r.summary()))
	_, err := io.WriteString(w, b.String())
	return err
}

func alignment(col, files int) string {
	if col >= 2 && col <= files+2 || col == files+4 { // values, change and p right-aligned
		return " ---: |"
	}
	return " --- |"
}

func mdVerdict(v Verdict) string {
	switch v {
	case VerdictRegressed:
		return ":x: **regressed**"
	case VerdictImproved:
		return ":white_check_mark: improved"
	}
	return string(v)
}

// mdCell makes text safe inside a table cell: no pipes, no line breaks, no markup from inputs.
func mdCell(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "`", "'")
	return r.Replace(s)
}

// mdCellKeepCode is mdCell for cells this package already formatted (code spans, bold, emoji).
func mdCellKeepCode(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func code(s string) string {
	return "`" + strings.NewReplacer("`", "'", "|", `\|`, "\n", " ").Replace(s) + "`"
}

func codeList(xs []string) string { return strings.Join(mapStrings(xs, code), ", ") }

func mapStrings(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
