package gate

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// header is the table's column titles: one value column per file, then the comparison columns.
func (r Report) header() []string {
	h := append([]string{"metric", "unit"}, labels(r.Files)...)
	return append(h, "change", "verdict", "p", fmt.Sprintf("%.4g%% CI of ratio", 100*(1-r.RowAlpha())))
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
	case c.Test == TestNone:
		return "-"
	case c.PValue < 0.0001:
		return "<0.0001"
	}
	return fmt.Sprintf("%.2g", c.PValue)
}

func formatCI(c Comparison) string {
	if !c.HasCI {
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f]", c.CI.Low, c.CI.High)
}

// notes explain the method and what besides more iterations would settle an inconclusive
// comparison (inconclusiveLines say how many).
func (r Report) notes() []string {
	var logs, raw, inconclusive bool
	for _, s := range r.Services {
		for _, row := range s.Rows {
			for _, c := range row.Compared {
				logs = logs || c.HasCI && c.Logs
				raw = raw || c.HasCI && !c.Logs
				inconclusive = inconclusive || c.Verdict == VerdictInconclusive
			}
		}
	}
	test := "Welch's t-test"
	if r.Paired {
		test = "the paired t-test (iterations side by side)"
	}
	var notes []string
	if logs {
		notes = append(notes, fmt.Sprintf("p: %s on the logs of the iterations; CI: its %.4g%% interval of the ratio of geometric means, from the same t (it excludes 1 exactly when p < %.4g).", test, 100*(1-r.RowAlpha()), r.RowAlpha()))
	}
	if raw {
		notes = append(notes, fmt.Sprintf("Rows with a value not above 0: %s on the values; CI: 1 + its interval of the difference over the base's mean.", test))
	}
	if (logs || raw) && r.Family > 1 {
		notes = append(notes, fmt.Sprintf("%d comparisons can fail this gate, so each is tested at alpha %g / %d (Bonferroni): noise alone fails it at most %g of the time. Fewer metrics (--metric) test each more finely.",
			r.Family, r.Alpha, r.Family, r.Alpha))
	}
	if logs || raw || inconclusive {
		notes = append(notes, fmt.Sprintf("regressed or improved: the CI excludes 1 and the change passes %g%%; unchanged: the CI lies within [%.3f, %.3f]; inconclusive: neither (or fewer than %d iterations on a side).",
			100*r.Threshold, 1/(1+r.Threshold), 1+r.Threshold, MinIterations))
	}
	if inconclusive && !r.Paired {
		notes = append(notes, "Running base and head side by side (crank bisect --side-by-side) takes out what moves both alike and narrows the intervals.")
	}
	if inconclusive && r.Busy {
		notes = append(notes, "A result ran on a busy machine: a quiet machine narrows the intervals too.")
	}
	return notes
}

// inconclusiveLines say, for each inconclusive comparison, how wide its interval is and the
// iterations per side that would likely tell.
func (r Report) inconclusiveLines() []string {
	var out []string
	names := labels(r.Files)
	for _, s := range r.Services {
		for _, row := range s.Rows {
			for j, c := range row.Compared {
				if c.Verdict != VerdictInconclusive {
					continue
				}
				what := s.Service + " " + row.Metric
				if len(row.Compared) > 1 && j+1 < len(names) {
					what += " (" + names[j+1] + ")"
				}
				line := "inconclusive: " + what + ": " + r.whatWouldTell(c)
				if row.Direction == DirectionUnknown {
					line += " (direction unknown: never fails the gate)"
				}
				out = append(out, line)
			}
		}
	}
	return out
}

// whatWouldTell is an inconclusive comparison's evidence and the iterations that would settle it.
func (r Report) whatWouldTell(c Comparison) string {
	at := iterations(c.Iterations[0]) + " and " + iterations(c.Iterations[1])
	switch {
	case c.Test == TestPaired:
		at = fmt.Sprintf("%d pairs", c.Iterations[0])
	case c.Iterations[0] == c.Iterations[1]:
		at = iterations(c.Iterations[0])
	}
	if c.Iterations[0] < MinIterations || c.Iterations[1] < MinIterations {
		return fmt.Sprintf("no interval from %s: %d iterations on each side at least", at, MinIterations)
	}
	if !c.HasCI || c.Needed == 0 {
		return fmt.Sprintf("no usable interval from %s: more iterations would tell", at)
	}
	half := 100 * (c.CI.High - c.CI.Low) / 2
	if c.Logs {
		half = 100 * (math.Sqrt(c.CI.High/c.CI.Low) - 1)
	}
	ev := fmt.Sprintf("%+.1f%% ±%.1f%% at %s", 100*(c.Ratio-1), half, at)
	switch {
	case c.Needed >= MaxNeeded && c.AtThreshold:
		return fmt.Sprintf("%s; the change sits at the %g%% threshold: more than %d per side would tell", ev, 100*r.Threshold, MaxNeeded)
	case c.Needed >= MaxNeeded:
		return fmt.Sprintf("%s; more than %d per side would be needed: the noise is too wide for a %g%% threshold", ev, MaxNeeded, 100*r.Threshold)
	}
	return fmt.Sprintf("%s; about %d per side would tell", ev, c.Needed)
}

// iterations counts a side's iterations; a result without any is one run.
func iterations(n int) string {
	if n <= 1 {
		return "1 iteration"
	}
	return fmt.Sprintf("%d iterations", n)
}

func (r Report) summary() string {
	regs, inc := r.Regressions(), r.Inconclusive()
	tail := ""
	if len(inc) > 0 {
		tail = fmt.Sprintf("%d inconclusive: %s.", len(inc), strings.Join(inc, ", "))
	}
	switch {
	case len(regs) > 0 && tail != "":
		return fmt.Sprintf("Result: %d regression(s) beyond %g%%: %s; %s", len(regs), 100*r.Threshold, strings.Join(regs, ", "), tail)
	case len(regs) > 0:
		return fmt.Sprintf("Result: %d regression(s) beyond %g%%: %s.", len(regs), 100*r.Threshold, strings.Join(regs, ", "))
	case tail != "":
		return fmt.Sprintf("Result: no regression shown beyond %g%%, but %s", 100*r.Threshold, tail)
	}
	return fmt.Sprintf("Result: no regression beyond %g%%.", 100*r.Threshold)
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
	for _, l := range r.inconclusiveLines() {
		b.WriteString(termtext.Clean(l) + "\n")
	}
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
	for _, l := range r.inconclusiveLines() {
		b.WriteString(":grey_question: " + mdCell(l) + "<br>\n")
	}
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
	case VerdictInconclusive:
		return ":grey_question: inconclusive"
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
