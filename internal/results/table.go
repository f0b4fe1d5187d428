package results

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// WriteTables prints one table per service (in the given order): name, value, unit, in the order
// the service's metadata declares them, then any undeclared result by name. Over several
// iterations a value is the mean and its coefficient of variation: "12,345 ± 3.1%".
func WriteTables(w io.Writer, r *Result, services []string) error {
	return WriteTablesWith(w, r, services, nil)
}

// Column is an extra last column of a service's table: its text for one measurement.
type Column func(service string, jr *JobResult, name string) string

// WriteTablesWith is WriteTables with an extra column (nil: none), such as --chart's.
func WriteTablesWith(w io.Writer, r *Result, services []string, extra Column) error {
	var b strings.Builder
	for _, svc := range services {
		jr, ok := r.JobResults.Jobs[svc]
		if !ok {
			continue
		}
		rs := rows(jr)
		var more []string
		if extra != nil {
			for _, row := range rs {
				more = append(more, termtext.Clean(extra(svc, jr, row[0])))
			}
		}
		for i, row := range rs { // names, values and reasons may hold an agent's text
			rs[i] = [3]string{termtext.Clean(row[0]), termtext.Clean(row[1]), termtext.Clean(row[2])}
		}
		writeTable(&b, svc, rs, more)
		if m := jr.LoadTool; m != nil {
			fmt.Fprintf(&b, "%s latency (%s, %s): %s\n", svc, m.Tool, m.Mode, m.Note)
		}
		writeProfiles(&b, svc, jr.Profiles)
	}
	if len(r.JobResults.Diagnostics) > 0 {
		b.WriteString("\nDiagnosis" + iterationNote(r) + ":\n")
		writeDiagnostics(&b, r.JobResults.Diagnostics)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes a markdown-style table: names left-aligned, values right-aligned, and the
// extra column (when given, one entry per row) left-aligned.
func writeTable(b *strings.Builder, title string, rows [][3]string, extra []string) {
	wn, wv, wu, we := len(title), len("value"), len("unit"), 0
	for i, r := range rows {
		wn, wv, wu = max(wn, len(r[0])), max(wv, utf8.RuneCountInString(r[1])), max(wu, len(r[2]))
		if extra != nil {
			we = max(we, utf8.RuneCountInString(extra[i]))
		}
	}
	end := func(i int) string {
		if extra == nil {
			return "\n"
		}
		s := ""
		if i >= 0 {
			s = extra[i]
		}
		return fmt.Sprintf(" %s%s |\n", s, strings.Repeat(" ", we-utf8.RuneCountInString(s)))
	}
	fmt.Fprintf(b, "\n| %-*s | %*s | %-*s |%s", wn, title, wv, "value", wu, "unit", end(-1))
	sep := ""
	if extra != nil {
		sep = " " + strings.Repeat("-", we) + " |"
	}
	fmt.Fprintf(b, "| %s | %s | %s |%s\n", strings.Repeat("-", wn), strings.Repeat("-", wv), strings.Repeat("-", wu), sep)
	for i, r := range rows {
		fmt.Fprintf(b, "| %-*s | %*s | %-*s |%s", wn, r[0], wv, r[1], wu, r[2], end(i))
	}
}

func rows(jr *JobResult) [][3]string {
	var out [][3]string
	seen := map[string]bool{}
	for _, md := range jr.Metadata {
		v, ok := jr.Results[md.Name]
		if !ok || seen[md.Name] || shownAs(jr, md.Name) {
			continue
		}
		seen[md.Name] = true
		value := withSampled(jr, md, withSampleSpread(jr, md, withSpread(jr, md.Name, Format(v, md.Format))))
		if why, ok := jr.Approximate[md.Name]; ok {
			value += " (approximation: " + why + ")"
		}
		out = append(out, [3]string{md.Name, value + lookalike(jr, md.Name), md.Unit})
	}
	var rest []string
	for k := range jr.Results {
		if !seen[k] && !shownAs(jr, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		out = append(out, [3]string{k, withSpread(jr, k, Format(jr.Results[k], "n2")) + lookalike(jr, k), ""})
	}
	for _, k := range slices.Sorted(maps.Keys(jr.NotMeasured)) {
		if _, has := jr.Results[k]; !has {
			out = append(out, [3]string{k, "not measured: " + jr.NotMeasured[k], ""})
		}
	}
	texts := make([]string, 0, len(jr.Values))
	for k := range jr.Values {
		texts = append(texts, k)
	}
	sort.Strings(texts)
	for _, k := range texts {
		out = append(out, [3]string{k, fmt.Sprint(jr.Values[k]), ""})
	}
	return out
}

// withSampled says which sample a sampled figure's value is, when it is not their mean (crank's
// benchmarks/cpu is the highest sample): "53 max, mean 50.9", the mean over the measured samples.
// A figure is sampled when some endpoint has two measured samples of it or more (a tool's one
// summary per endpoint is not); over several endpoints, their means are reduced as the catalog
// reduces the figure (the sum of RPS, the highest CPU). Over iterations it says the value is the
// mean of each iteration's max instead.
func withSampled(jr *JobResult, md api.Metadata, value string) string {
	if md.Aggregate != api.OpMax && md.Aggregate != api.OpMin {
		return value
	}
	sampled := false
	for _, tl := range jr.Measurements {
		n := 0
		for _, m := range tl {
			if m.Name == md.Name && m.Measured() {
				n++
			}
		}
		sampled = sampled || n >= 2
	}
	means := endpointMeans(jr, md.Name)
	if !sampled || len(means) == 0 {
		return value
	}
	// Over iterations the value is the mean of each iteration's max, and the measurements are one
	// iteration's: their mean is no mean of the value's samples (it once read "36 ± 20.2 % max,
	// mean 43", a max below its mean).
	if sp, ok := jr.Spread[md.Name]; ok && sp.N >= 2 {
		return fmt.Sprintf("%s, mean of %d iterations' %s", value, sp.N, md.Aggregate)
	}
	mean, ok := Apply(md.Reduce, means)
	if !ok { // a reduction the results refuse too
		return value
	}
	return fmt.Sprintf("%s %s, mean %s", value, md.Aggregate, Format(mean, md.Format))
}

// withSpread appends "± CV%" to a mean over several iterations.
func withSpread(jr *JobResult, name, value string) string {
	sp, ok := jr.Spread[name]
	if !ok || sp.N < 2 {
		return value
	}
	return fmt.Sprintf("%s ± %.1f%%", value, sp.CV)
}

// shownAs tells a crank alias (wrk/requests) whose value shows under our name (http/requests).
func shownAs(jr *JobResult, name string) bool {
	ours, ok := measure.Aliases[name]
	if !ok {
		return false
	}
	_, has := jr.Results[ours]
	return has
}

// lookalike says why a figure that looks like one of ours shown beside it (bombardier/rps/mean
// beside http/rps/mean) reads differently.
func lookalike(jr *JobResult, name string) string {
	l, ok := measure.Lookalikes[name]
	if _, has := jr.Results[l.Ours]; !ok || !has {
		return ""
	}
	return " (not " + l.Ours + ": " + l.Why + ")"
}

// Format renders v with a .NET-style format as crank's metadata gives it ("n0", "n2"):
// that many decimals and thousands separators.
func Format(v float64, format string) string {
	decimals := 2
	if d, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(format), "n")); err == nil && d >= 0 && d < 10 {
		decimals = d
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && s != strings.Repeat("0", len(s)) {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// writeDiagnostics writes the verdict (the first diagnostic) and the findings beside it, each
// with the figures it rests on.
func writeDiagnostics(b *strings.Builder, ds []Diagnostic) {
	for i, d := range ds {
		label := "verdict"
		if i > 0 {
			label = "also"
		}
		fmt.Fprintf(b, "  %s %s: %s\n", label, d.Kind, termtext.Clean(d.Message))
		if len(d.Figures) > 0 {
			figs := make([]string, len(d.Figures))
			for k, f := range d.Figures {
				figs[k] = termtext.Clean(f.String())
			}
			fmt.Fprintf(b, "    rests on: %s\n", strings.Join(figs, "; "))
		}
	}
}

// iterationNote says which iteration the diagnosis's samples come from, with several.
func iterationNote(r *Result) string {
	for _, jr := range r.JobResults.Jobs {
		if jr != nil && jr.TimelineIteration > 0 && len(jr.Iterations) > 1 {
			return fmt.Sprintf(" (CPU from the samples of iteration %d of %d; results are the means)", jr.TimelineIteration, len(jr.Iterations))
		}
	}
	return ""
}

// Rows are a service's table rows (name, value, unit), as WriteTables prints them.
func Rows(jr *JobResult) [][3]string { return rows(jr) }
