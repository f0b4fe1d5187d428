package cli

import (
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/results"
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
