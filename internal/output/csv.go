package output

import (
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/crankshaft/crankshaft/internal/results"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// csvCell is a CSV cell a spreadsheet will not run: text beginning with =, +, -, @, a tab or a
// carriage return (a formula, such as "=cmd|' /C calc'!A0" as an agent's cpuModel) is prefixed
// with a single quote, as OWASP's CSV injection advice says; a number ("-1.5") is kept as it is.
func csvCell(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}

// csvHeader reads the header of the CSV file at path: nil when the file does not exist or is
// empty (a new file gets this run's header).
func csvHeader(path string) ([]string, error) {
	if err := safewrite.Check(path); err != nil { // a link or a fifo is not read (nor appended to)
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: reading its header: %w", path, err)
	}
	return header, nil
}

// sameCSVHeader refuses to append a row under a header with other columns (the measurements, a
// service or a property changed since the file was begun): its cells would sit under other
// columns' names. The error names the file and the columns that differ.
func sameCSVHeader(path string, have, want []string) error {
	if slices.Equal(have, want) {
		return nil
	}
	var missing, extra []string
	for _, c := range want {
		if !slices.Contains(have, c) {
			missing = append(missing, c)
		}
	}
	for _, c := range have {
		if !slices.Contains(want, c) {
			extra = append(extra, c)
		}
	}
	why := "the same columns in another order"
	if len(missing)+len(extra) > 0 {
		why = fmt.Sprintf("this run's columns not in the file: %s; the file's columns this run lacks: %s", orNone(missing), orNone(extra))
	}
	return fmt.Errorf("%s: its header does not match this run's columns (%s): the row is not appended; give --csv a new file", path, why)
}

func orNone(cols []string) string {
	if len(cols) == 0 {
		return "none"
	}
	return strings.Join(cols, ", ")
}

// WriteCSV appends one row to path as crank does: session, time, description, then per service
// its results (by metadata), environment and variables, then the properties; the header row is
// written when the file is new (or empty), and a file whose header has other columns is refused
// (sameCSVHeader). Columns are sorted by name within each group. Cells a spreadsheet would read
// as formulas are quoted (csvCell).
func WriteCSV(path string, res *results.Result, now time.Time) error {
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
