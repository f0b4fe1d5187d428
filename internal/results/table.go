package results

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// WriteTables prints one table per service (in the given order): name, value, unit, in the order
// the service's metadata declares them, then any undeclared result by name.
func WriteTables(w io.Writer, r *Result, services []string) error {
	var b strings.Builder
	for _, svc := range services {
		jr, ok := r.JobResults.Jobs[svc]
		if !ok {
			continue
		}
		writeTable(&b, svc, rows(jr))
	}
	if len(r.JobResults.Diagnostics) > 0 {
		b.WriteString("\nDiagnosis:\n")
		for _, d := range r.JobResults.Diagnostics {
			fmt.Fprintf(&b, "  %s: %s\n", d.Kind, d.Message)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes a markdown-style table: names left-aligned, values right-aligned.
func writeTable(b *strings.Builder, title string, rows [][3]string) {
	wn, wv, wu := len(title), len("value"), len("unit")
	for _, r := range rows {
		wn, wv, wu = max(wn, len(r[0])), max(wv, len(r[1])), max(wu, len(r[2]))
	}
	fmt.Fprintf(b, "\n| %-*s | %*s | %-*s |\n", wn, title, wv, "value", wu, "unit")
	fmt.Fprintf(b, "| %s | %s | %s |\n", strings.Repeat("-", wn), strings.Repeat("-", wv), strings.Repeat("-", wu))
	for _, r := range rows {
		fmt.Fprintf(b, "| %-*s | %*s | %-*s |\n", wn, r[0], wv, r[1], wu, r[2])
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
		out = append(out, [3]string{md.Name, Format(v, md.Format), md.Unit})
	}
	var rest []string
	for k := range jr.Results {
		if !seen[k] && !shownAs(jr, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		out = append(out, [3]string{k, Format(jr.Results[k], "n2"), ""})
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

// shownAs tells a crank alias (wrk/requests) whose value shows under our name (http/requests).
func shownAs(jr *JobResult, name string) bool {
	ours, ok := measure.Aliases[name]
	if !ok {
		return false
	}
	_, has := jr.Results[ours]
	return has
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
