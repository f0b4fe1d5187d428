package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
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

func (h History) headline(source func(string) string) string {
	n := "No change points"
	if len(h.Findings) > 0 {
		n = fmt.Sprintf("%d change point(s)", len(h.Findings))
	}
	where := "under " + source(h.Dir)
	if h.Dir == "" {
		where = "in crank_summary of " + source(h.Influx)
	}
	more := ""
	if h.Truncated {
		more = " (the most recent points only)"
	}
	short := ""
	if h.Short > 0 {
		short = fmt.Sprintf(" Inconclusive: %d series with fewer than %d runs, too short to tell.", h.Short, h.minRuns())
	}
	return fmt.Sprintf("%s in %d series over %d results%s %s (%s).%s", n, h.Series, h.Files, more, where, h.settings(), short)
}

// column is one column of the change point tables.
type column struct {
	name string
	cell func(Finding) string
	code bool // shown as a code span in markdown
}

// columns are the tables' columns; machine, variant and branch only when a finding names one, and the run's file,
// or its session when the history came from InfluxDB.
func (h History) columns() []column {
	cols := []column{
		{"scenario", func(f Finding) string { return f.Scenario }, false},
		{"profiles", func(f Finding) string { return f.Profiles }, false},
		{"service", func(f Finding) string { return f.Service }, false},
	}
	if slices.ContainsFunc(h.Findings, func(f Finding) bool { return f.Arch != "" || f.Machine != "" }) {
		cols = append(cols, column{"machine", func(f Finding) string { return strings.TrimSpace(f.Arch + " " + f.Machine) }, false})
	}
	if slices.ContainsFunc(h.Findings, func(f Finding) bool { return f.Variant != "" && f.Variant != influx.NoVariant }) {
		cols = append(cols, column{"variant", func(f Finding) string { return f.Variant }, true})
	}
	if slices.ContainsFunc(h.Findings, func(f Finding) bool { return f.Branch != "" }) {
		cols = append(cols, column{"branch", func(f Finding) string { return f.Branch }, false})
	}
	run := column{"file", func(f Finding) string { return f.File }, true}
	if h.Dir == "" {
		run = column{"session", func(f Finding) string { return f.Session }, true}
	}
	return append(cols,
		column{"metric", func(f Finding) string { return f.Metric }, true},
		column{"run", func(f Finding) string { return strconv.Itoa(f.Index) }, false},
		column{"time", func(f Finding) string { return f.Time.UTC().Format(time.RFC3339) }, false},
		run,
		column{"before", func(f Finding) string { return results.Format(f.Before, "n2") }, false},
		column{"after", func(f Finding) string { return results.Format(f.After, "n2") }, false},
		column{"change", func(f Finding) string { return fmt.Sprintf("%+.2f%%", 100*f.Change) }, false},
		column{"p", func(f Finding) string { return fmt.Sprintf("%.2g", f.PValue) }, false},
		column{"", verdictOf, false},
	)
}

func verdictOf(f Finding) string {
	switch {
	case f.Regression:
		return "regression"
	case f.Direction == DirectionUnknown.String():
		return "change"
	}
	return "improvement"
}

// WriteText writes the change points as an aligned table.
func (h History) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", h.headline(func(s string) string { return s }))
	if len(h.Findings) > 0 {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		cols := h.columns()
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = c.name
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
		for _, f := range h.Findings {
			for i, c := range cols {
				row[i] = c.cell(f)
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, f := range h.Findings {
			if cmd := f.BisectCommand(); cmd != "" {
				fmt.Fprintf(&b, "\nto find the commit behind %s %s:\n  %s\n", f.Service, f.Metric, cmd)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the change points for a job summary or an issue.
func (h History) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Performance change points\n\n%s\n", h.headline(code))
	if len(h.Findings) > 0 {
		cols := h.columns()
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = c.name
		}
		fmt.Fprintf(&b, "\n| %s |\n|%s\n", strings.Join(row, " | "), strings.Repeat(" --- |", len(cols)))
		for _, f := range h.Findings {
			for i, c := range cols {
				row[i] = mdCell(c.cell(f))
				if c.code && row[i] != "" {
					row[i] = code(c.cell(f))
				}
			}
			if f.Regression {
				row[len(row)-1] = ":x: **regression**"
			}
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
