package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
)

func (h History) write(w io.Writer, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(h.Findings)
	case "markdown":
		return h.WriteMarkdown(w)
	}
	return h.WriteText(w)
}

func (h History) settings() string {
	return fmt.Sprintf("p-value %g, magnitude %g%%, window %d", h.Options.PValue, 100*h.Options.Magnitude, h.Options.Window)
}

func (h History) headline() string {
	n := "No change points"
	if len(h.Findings) > 0 {
		n = fmt.Sprintf("%d change point(s)", len(h.Findings))
	}
	return fmt.Sprintf("%s in %d series over %d results", n, h.Series, h.Files)
}

func (f Finding) cells() []string {
	what := "improvement"
	switch {
	case f.Regression:
		what = "regression"
	case f.Direction == DirectionUnknown.String():
		what = "change"
	}
	return []string{f.Scenario, f.Profiles, f.Service, f.Metric, strconv.Itoa(f.Index),
		f.Time.UTC().Format(time.RFC3339), f.File, results.Format(f.Before, "n2"), results.Format(f.After, "n2"),
		fmt.Sprintf("%+.2f%%", 100*f.Change), fmt.Sprintf("%.2g", f.PValue), what}
}

var findingHeader = [...]string{"scenario", "profiles", "service", "metric", "run", "time", "file", "before", "after", "change", "p", ""}

// WriteText writes the change points as an aligned table.
func (h History) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s under %s (%s).\n", h.headline(), h.Dir, h.settings())
	if len(h.Findings) > 0 {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(findingHeader[:], "\t"))
		for _, f := range h.Findings {
			fmt.Fprintln(tw, strings.Join(f.cells(), "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the change points for a job summary or an issue.
func (h History) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Performance change points\n\n%s under %s (%s).\n", h.headline(), code(h.Dir), h.settings())
	if len(h.Findings) > 0 {
		fmt.Fprintf(&b, "\n| %s |\n|%s\n", strings.Join(findingHeader[:], " | "), strings.Repeat(" --- |", len(findingHeader)))
		for _, f := range h.Findings {
			cells := f.cells()
			for i := range cells {
				cells[i] = mdCell(cells[i])
			}
			cells[3], cells[6] = code(f.Metric), code(f.File)
			if f.Regression {
				cells[11] = ":x: **regression**"
			}
			fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
