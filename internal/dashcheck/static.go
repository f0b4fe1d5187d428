package dashcheck

import (
	"fmt"
	"slices"
	"strings"
)

// PanelTypes are the panel types Grafana ships (core panel plugins' ids).
var PanelTypes = []string{
	"alertlist", "annolist", "barchart", "bargauge", "candlestick", "canvas", "dashlist", "datagrid",
	"flamegraph", "gauge", "geomap", "heatmap", "histogram", "logs", "news", "nodeGraph", "piechart",
	"row", "stat", "state-timeline", "status-history", "table", "text", "timeseries", "traces",
	"trend", "welcome", "xychart",
}

// ResultFormats are the InfluxQL target's result formats.
var ResultFormats = []string{"time_series", "table", "logs"}

// grafanaUnits are the unit ids of Grafana's unit list (packages/grafana-data valueFormats
// categories) for the kinds crank measures: misc, data, data rate, date and time, throughput.
// Custom units are written "suffix:<text>", "prefix:<text>", "si:<text>", "count:<text>",
// "currency:<text>" or "time:<format>".
var grafanaUnits = strings.Fields(`none string short percent percentunit humidity dB hex0x hex sci locale pixel
	bits bytes kbytes mbytes gbytes tbytes pbytes
	decbits decbytes deckbytes decmbytes decgbytes dectbytes decpbytes
	pps bps Bps KBs Kbits MBs Mbits GBs Gbits TBs Tbits PBs Pbits
	dateTimeAsIso dateTimeAsIsoNoDateIfToday dateTimeAsUS dateTimeAsUSNoDateIfToday dateTimeFromNow
	hertz ns µs ms s m h d dtdurationms dtdurations dthms dtdhms timeticks clockms clocks
	cps ops reqps rps wps iops cpm opm rpm wpm bool bool_yes_no bool_on_off`)

var customUnitPrefixes = []string{"suffix:", "prefix:", "si:", "count:", "currency:", "time:"}

// ValidUnit tells whether unit is in Grafana's unit list or a custom unit ("" is no unit).
func ValidUnit(unit string) bool {
	if unit == "" || slices.Contains(grafanaUnits, unit) {
		return true
	}
	for _, p := range customUnitPrefixes {
		if rest, ok := strings.CutPrefix(unit, p); ok && strings.TrimSpace(rest) != "" {
			return true
		}
	}
	return false
}

// checkDatasource says what is wrong with a datasource reference, given the uids provisioned
// (any uid when none is known).
func checkDatasource(ds *dsRef, uids []string) error {
	switch {
	case ds == nil:
		return fmt.Errorf("no datasource")
	case ds.Name != "":
		return fmt.Errorf("datasource %q by name: reference it by type and uid", ds.Name)
	case ds.Type != "influxdb":
		return fmt.Errorf("datasource type %q, want \"influxdb\"", ds.Type)
	case ds.UID == "" || len(uids) > 0 && !slices.Contains(uids, ds.UID):
		return fmt.Errorf("datasource uid %q is not a provisioned InfluxDB datasource (%s)", ds.UID, strings.Join(uids, ", "))
	}
	return nil
}

// staticErrors are the problems of a dashboard seen without running it: datasources, panel
// types, units, grid positions, result formats, raw queries.
func staticErrors(b board, uids []string) []error {
	var errs []error
	for _, v := range b.Templating.List {
		if v.Type == "query" {
			if err := checkDatasource(v.Datasource, uids); err != nil {
				errs = append(errs, fmt.Errorf("variable %s: %w", v.Name, err))
			}
		}
	}
	for _, a := range b.Annotations.List {
		if a.BuiltIn != 0 {
			continue
		}
		if err := checkDatasource(a.Datasource, uids); err != nil {
			errs = append(errs, fmt.Errorf("annotation %q: %w", a.Name, err))
		}
		if a.Target != nil && a.Target.Datasource != nil {
			if err := checkDatasource(a.Target.Datasource, uids); err != nil {
				errs = append(errs, fmt.Errorf("annotation %q: target: %w", a.Name, err))
			}
		}
	}
	for _, p := range flatten(b.Panels) {
		for _, err := range panelErrors(p, uids) {
			errs = append(errs, fmt.Errorf("panel %q: %w", p.Title, err))
		}
	}
	return errs
}

func panelErrors(p boardPanel, uids []string) []error {
	var errs []error
	if p.Type == "" {
		errs = append(errs, fmt.Errorf("no panel type"))
	} else if !slices.Contains(PanelTypes, p.Type) {
		errs = append(errs, fmt.Errorf("panel type %q is not a Grafana panel type (%s)", p.Type, strings.Join(PanelTypes, ", ")))
	}
	g := p.GridPos
	if g.W < 1 || g.H < 1 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
		errs = append(errs, fmt.Errorf("gridPos x=%d w=%d h=%d y=%d leaves the 24-column grid", g.X, g.W, g.H, g.Y))
	}
	units := []string{p.FieldConfig.Defaults.Unit}
	for _, o := range p.FieldConfig.Overrides {
		for _, pr := range o.Properties {
			if u, ok := pr.Value.(string); ok && pr.ID == "unit" {
				units = append(units, u)
			}
		}
	}
	for _, u := range units {
		if !ValidUnit(u) {
			errs = append(errs, fmt.Errorf("unit %q is not in Grafana's unit list", u))
		}
	}
	if p.Type == "row" {
		return errs
	}
	if len(p.Targets) == 0 {
		return append(errs, fmt.Errorf("no query"))
	}
	if err := checkDatasource(p.Datasource, uids); err != nil {
		errs = append(errs, err)
	}
	for _, t := range p.Targets {
		if err := checkDatasource(t.Datasource, uids); err != nil {
			errs = append(errs, fmt.Errorf("target %s: %w", t.RefID, err))
		}
		if !slices.Contains(ResultFormats, t.ResultFormat) {
			errs = append(errs, fmt.Errorf("target %s: resultFormat %q, want one of %s", t.RefID, t.ResultFormat,
				strings.Join(ResultFormats, ", ")))
		}
		if !t.RawQuery || t.Query == "" {
			errs = append(errs, fmt.Errorf("target %s: not a raw InfluxQL query", t.RefID))
		}
	}
	return errs
}
