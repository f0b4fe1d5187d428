package cli

import (
	"encoding/json"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/flags"
	"strconv"
	"strings"
)

// shortFlags are crank's one-letter names. crank registers -j for both --job and --json; here
// it is --json, the one results pipelines pass. -o and --output are crank's old names of -j and
// --json, which crank still accepts.
var shortFlags = map[string]string{
	"c": "config", "s": "scenario", "p": "property", "i": "iterations", "j": "json", "o": "json", "output": "json", "m": "interval",
	"d": "debug", "x": "exclude", "xo": "exclude-order", "v": "verbose",
}

// flagName maps a short name to its long one and ignores case, as crank does; a service override
// (a name with a dot) keeps its case, as variable names are case-sensitive.
func flagName(name string) string {
	name = flags.Fold(name)
	if long, ok := shortFlags[name]; ok {
		return long
	}
	return name
}

// switchFlag sets a flag that takes no value and reports whether name was one.
func switchFlag(f *runFlags, name string) bool {
	switch name {
	case "verbose":
		f.verbose = true
	case "strict":
		f.strict = true
	case "no-measurements":
		f.output.noMeasurements = true
	case "no-metadata":
		f.output.noMetadata = true
	case "command-line-property":
		f.output.commandLineProperty = true
	default:
		return false
	}
	return true
}

// refusedFlags are crank's options that need Azure services, with what to do instead. They are
// refused before any value is read (--auto-flush and --cert-sni take none).
var refusedFlags = map[string]string{
	"sql":   "results go to SQL Server only in crank; publish them to InfluxDB with --influx-url (see docs/INFLUXDB.md)",
	"table": "results go to SQL Server only in crank; publish them to InfluxDB with --influx-url (see docs/INFLUXDB.md)",
	"es":    "results go to Elasticsearch only in crank; publish them to InfluxDB with --influx-url (see docs/INFLUXDB.md)",
	"index": "results go to Elasticsearch only in crank; publish them to InfluxDB with --influx-url (see docs/INFLUXDB.md)",
	"relay": "crank reaches its agents through an Azure Relay namespace with it; here crank calls each agent's URL " +
		"directly, with the agent's token: give the URLs as --<service>.endpoints (see docs/DISTRIBUTED.md)",
	"auto-flush": "it flushes a long-running job's measurements to SQL Server or Elasticsearch as it runs; " +
		"run with --span and publish to InfluxDB with --influx-url (see docs/INFLUXDB.md)",
}

// azureAuthFlags are crank's options that authenticate to Azure (SQL Server, Azure Relay).
var azureAuthFlags = []string{"cert-client-id", "cert-tenant-id", "cert-thumbprint", "cert-path", "cert-pwd", "cert-sni", "mi-client-id"}

// refusedFlag is the error for a crank option this platform refuses, or nil.
func refusedFlag(name string) error {
	if hint, ok := refusedFlags[name]; ok {
		return usagef("crank's --%s is not supported: %s", name, hint)
	}
	for _, a := range azureAuthFlags {
		if name == a {
			return usagef("crank's --%s is not supported: it authenticates to Azure (SQL Server, Azure Relay); "+
				"agents here take --agent-token or --agent-token-file and --agent-ca", name)
		}
	}
	return nil
}

// setMore sets crank's options beyond the core ones; ok is false for a name it does not know.
func (f *runFlags) setMore(name, value string) (bool, error) {
	switch name {
	case "property":
		k, v, ok := strings.Cut(value, "=")
		if !ok || k == "" {
			return true, usagef("--property %q: want name=value", value)
		}
		if strings.HasSuffix(k, `\`) || strings.HasSuffix(v, `\`) {
			// InfluxDB's line protocol cannot carry it: it would escape what follows and make every
			// line of the run invalid, so that the run could never be written.
			return true, usagef("--property %q: a name or value may not end with a backslash (InfluxDB tags cannot)", value)
		}
		f.properties[k] = v
	case "variable-json":
		k, v, ok := strings.Cut(value, "=")
		if !ok || k == "" {
			return true, usagef("--variable-json %q: want name=JSON", value)
		}
		var parsed any
		if err := json.Unmarshal([]byte(v), &parsed); err != nil {
			return true, usagef("--variable-json %s: %v", k, err)
		}
		f.jsonVars[k] = parsed
	case "import-map":
		m, err := config.ParseImportMapping(value, config.ImportMapFlag)
		if err != nil {
			return true, &usageError{err.Error()}
		}
		f.importMap = append(f.importMap, m)
	case "csv":
		f.output.csv = value
	case "job":
		f.jobs = append(f.jobs, value)
	case "interval":
		n, err := strconv.ParseFloat(value, 64)
		if err != nil || n <= 0 {
			return true, usagef("--interval %q: want seconds, more than 0", value)
		}
		f.interval = n
	default:
		return false, nil
	}
	return true, nil
}
