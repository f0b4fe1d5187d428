package output

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termchart"
)

// Result is crank's result.
type Result = results.Result

// The outputs crank has.
const (
	CSV     = "csv"      // a row appended to a CSV file (crank's --csv)
	JSON    = "json"     // the result file ("-": stdout)
	Table   = "table"    // the tables, with --chart's column and timelines
	Influx  = "influxdb" // points published to InfluxDB
	Compare = "compare"  // crank compare against a result file (--compare)
	// Capacity is a crank capacity search as the terminal shows it: its steps' table, chart and
	// answer; a matrix's capacities side by side.
	Capacity = "capacity"
)

// ErrNotConfigured is an output the command line did not configure (InfluxDB without a URL).
var ErrNotConfigured = errors.New("not configured")

func init() {
	Register(CSV, func(p Params) (Output, error) { return writerFunc(p.csv), nil })
	Register(JSON, func(p Params) (Output, error) { return writerFunc(p.json), nil })
	Register(Table, func(p Params) (Output, error) { return writerFunc(p.table), nil })
	Register(Influx, func(p Params) (Output, error) {
		if !p.Influx.Enabled() {
			return nil, fmt.Errorf("influxdb: no URL, org and bucket: %w", ErrNotConfigured)
		}
		return writerFunc(p.influx), nil
	})
	Register(Compare, func(p Params) (Output, error) { return writerFunc(p.compare), nil })
	Register(Capacity, func(p Params) (Output, error) { return writerFunc(p.capacity), nil })
}

type writerFunc func(ctx context.Context, r Run) error

func (f writerFunc) Write(ctx context.Context, r Run) error { return f(ctx, r) }

func (p Params) csv(_ context.Context, r Run) error {
	if err := WriteCSV(p.Arg, r.Result, time.Now()); err != nil {
		fmt.Fprintf(p.Stderr, "crank: writing %s: %v\n", p.Arg, err)
		return err
	}
	p.Written(p.Arg)
	return nil
}

// json writes the result to Arg ("-": stdout). When that fails it still keeps the results in a
// temporary file and names it.
func (p Params) json(_ context.Context, r Run) error {
	var err error
	if p.Arg == "-" {
		var b []byte
		if b, err = results.Marshal(r.Result); err == nil {
			_, err = p.Stdout.Write(b)
		}
	} else if err = results.WriteFile(p.Arg, r.Result); err == nil {
		p.Written(p.Arg)
	}
	if err == nil {
		return nil
	}
	fmt.Fprintf(p.Stderr, "crank: writing %s: %v\n", p.Arg, err)
	if tmp, terr := results.WriteTemp(r.Result); terr == nil {
		fmt.Fprintf(p.Stderr, "crank: the results are kept in %s\n", tmp)
	} else {
		fmt.Fprintf(p.Stderr, "crank: keeping the results in a temporary file: %v\n", terr)
	}
	return err
}

// table prints the tables on Stdout, with the chart's column and timelines when asked.
func (p Params) table(_ context.Context, r Run) error {
	var column results.Column
	if p.Chart != nil {
		column = termchart.Column(*p.Chart)
	}
	if err := results.WriteTablesWith(p.Stdout, r.Result, r.Order, column); err != nil {
		return err
	}
	if p.Chart != nil {
		termchart.Timelines(p.Stdout, r.Result, r.Order, *p.Chart)
	}
	return nil
}

func (p Params) influx(ctx context.Context, r Run) error {
	sum, err := influx.Publish(ctx, p.Influx, r.Result, p.Logger)
	if err != nil {
		fmt.Fprintf(p.Stderr, "crank: influxdb: %v\n", err)
		return err
	}
	fmt.Fprintln(p.Stderr, sum.String())
	return nil
}

// ErrRegressed is a comparison that found a regression.
var ErrRegressed = errors.New("a regression")

// BadInput marks an error of the input (a result file that cannot be read or compared).
type BadInput struct{ Err error }

func (e *BadInput) Error() string { return e.Err.Error() }
func (e *BadInput) Unwrap() error { return e.Err }

// compare compares the results with the file Arg (crank compare's test), on Stdout.
func (p Params) compare(_ context.Context, r Run) error {
	base, err := results.ReadFile(p.Arg)
	if err != nil {
		fmt.Fprintf(p.Stderr, "crank: --compare: %v\n", err)
		return &BadInput{err}
	}
	rep, err := gate.CompareResults(base, r.Result, gate.CompareOptions{}, p.Stdout)
	if err != nil {
		fmt.Fprintf(p.Stderr, "crank: --compare %s: %v\n", p.Arg, err)
		return &BadInput{err}
	}
	if rep.Regressed() {
		return ErrRegressed
	}
	return nil
}
