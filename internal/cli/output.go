package cli

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// outputFlags are crank's options about what is written and recorded.
type outputFlags struct {
	csv                 string
	noMeasurements      bool
	noMetadata          bool
	commandLineProperty bool
	commandLine         []string // the options worth recording, for command-line
}

// notRecorded are the options the command-line property leaves out, as crank does: where
// results go, labels, display, and secrets.
var notRecorded = map[string]bool{
	"json": true, "csv": true, "compare": true, "session": true, "description": true, "property": true,
	"no-metadata": true, "no-measurements": true, "verbose": true, "debug": true, "dry-run": true,
	"command-line-property": true, "agent-token": true, "agent-ca": true, "influx-url": true,
	"influx-token": true, "influx-org": true, "influx-bucket": true,
}

// keep remembers an option for the command-line property.
func (o *outputFlags) keep(name, value string, hasValue bool) {
	if notRecorded[name] {
		return
	}
	o.commandLine = append(o.commandLine, "--"+name)
	if hasValue {
		if value == "" || strings.ContainsAny(value, " \t\"'") {
			value = strconv.Quote(value)
		}
		o.commandLine = append(o.commandLine, value)
	}
}

// apply records the command line and drops what --no-measurements and --no-metadata leave out.
func (o *outputFlags) apply(res *results.Result) {
	if o.commandLineProperty {
		if res.JobResults.Properties == nil {
			res.JobResults.Properties = map[string]string{}
		}
		res.JobResults.Properties["command-line"] = "crank " + strings.Join(o.commandLine, " ")
	}
	for _, j := range res.JobResults.Jobs {
		if o.noMeasurements {
			j.Measurements = nil
		}
		if o.noMetadata {
			j.Metadata = nil
		}
	}
}

// writeCSV appends one row to path as crank does: session, time, description, then per service
// its results (by metadata), environment and variables, then the properties; the header row is
// written when the file is new (or empty), and a file whose header has other columns is refused
// (sameCSVHeader). Columns are sorted by name within each group. Cells a spreadsheet would read
// as formulas are quoted (csvCell).
func writeCSV(path string, res *results.Result, now time.Time) error {
	header := []string{"Session", "DateTimeUtc", "Description"}
	row := []string{csvCell(res.Session), now.UTC().Format("2006-01-02T15:04:05"), csvCell(res.Description)}
	add := func(name, value string) {
		header = append(header, csvCell(name))
		row = append(row, csvCell(value))
	}
	jobs := slices.Sorted(maps.Keys(res.JobResults.Jobs))
	for _, name := range jobs {
		j := res.JobResults.Jobs[name]
		for _, m := range j.Metadata {
			v := ""
			if x, ok := j.Results[m.Name]; ok {
				v = strconv.FormatFloat(x, 'f', -1, 64)
			} else if x, ok := j.Values[m.Name]; ok {
				v = fmt.Sprint(x)
			}
			add(name+"."+m.Name, v)
		}
		for _, k := range sortedKeys(j.Environment) {
			add(name+"."+k, fmt.Sprint(j.Environment[k]))
		}
		for _, k := range sortedKeys(j.Variables) {
			add(name+"."+k, fmt.Sprint(j.Variables[k]))
		}
	}
	props := make([]string, 0, len(res.JobResults.Properties))
	for k := range res.JobResults.Properties {
		props = append(props, k)
	}
	sort.Strings(props)
	for _, k := range props {
		add(k, res.JobResults.Properties[k])
	}
	have, err := csvHeader(path)
	if err != nil {
		return err
	}
	if have != nil {
		if err := sameCSVHeader(path, have, header); err != nil {
			return err
		}
	}
	return safewrite.Append(path, safewrite.Output, func(f io.Writer, empty bool) error {
		w := csv.NewWriter(f)
		if empty {
			_ = w.Write(header)
		}
		_ = w.Write(row)
		w.Flush()
		return w.Error()
	})
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
