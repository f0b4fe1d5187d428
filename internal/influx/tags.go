package influx

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/results"
)

// Tags are what a run's points carry besides what the result itself says.
type Tags struct {
	// Branch and Commit identify the code under test.
	Branch, Commit string
	// Machine, when set, names the machine instead of each service's hardware or hostname.
	Machine string
	// Variables names job variables whose values become tags ("partitions"): the others are not
	// written, to keep the number of series bounded.
	Variables []string
	// Extra tags added to every point.
	Extra map[string]string
}

// TagsFromEnv reads CRANK_BRANCH (or GITHUB_REF_NAME), CRANK_COMMIT (or GITHUB_SHA), CRANK_MACHINE,
// CRANK_INFLUX_VARIABLE_TAGS ("partitions,threads") and CRANK_INFLUX_TAGS ("lab=a,rack=3").
func TagsFromEnv(getenv func(string) string) Tags {
	first := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	t := Tags{
		Branch:  first("CRANK_BRANCH", "GITHUB_REF_NAME"),
		Commit:  first("CRANK_COMMIT", "GITHUB_SHA"),
		Machine: getenv("CRANK_MACHINE"),
	}
	for _, v := range strings.Split(getenv("CRANK_INFLUX_VARIABLE_TAGS"), ",") {
		if v = strings.TrimSpace(v); v != "" {
			t.Variables = append(t.Variables, v)
		}
	}
	for _, kv := range strings.Split(getenv("CRANK_INFLUX_TAGS"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		if k = strings.TrimSpace(k); ok && k != "" {
			if t.Extra == nil {
				t.Extra = map[string]string{}
			}
			t.Extra[k] = strings.TrimSpace(v)
		}
	}
	return t
}

// Values used when a run does not name them, so template variables can still select them.
const (
	NoScenario = "unnamed"
	NoProfile  = "default"
	NoVariant  = "default"
)

// VariantOf is a run's variant tag: its variant (properties and the variables that differ from
// the scenario's defaults; for an older result, its properties) as sorted name=value pairs joined
// by ",": "dispatch=partitioned,partitions=4"; NoVariant when it has none.
func VariantOf(res *results.Result) string {
	v := res.Variant
	if len(v) == 0 {
		v = res.JobResults.Properties
	}
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if k != "" && v[k] != "" {
			pairs = append(pairs, k+"="+v[k])
		}
	}
	return or(strings.Join(pairs, ","), NoVariant)
}

// runTags are the tags every point of the run shares (crank_run's tags): the user's properties
// and extra tags, overridden by the built-in ones of the same name.
func runTags(res *results.Result, t Tags) map[string]string {
	m := map[string]string{}
	maps.Copy(m, res.JobResults.Properties)
	maps.Copy(m, t.Extra)
	put(m, "scenario", or(res.Scenario, NoScenario))
	put(m, "profile", or(strings.Join(res.Profiles, "+"), NoProfile))
	put(m, "variant", VariantOf(res))
	put(m, "branch", t.Branch)
	put(m, "commit", t.Commit)
	return clean(m)
}

// serviceTags add to the run's tags those of one service and the machine it ran on.
func serviceTags(run map[string]string, session, service string, jr *results.JobResult, t Tags) map[string]string {
	m := maps.Clone(run)
	for _, v := range t.Variables {
		if s := text(jr.Variables[v]); s != "" {
			m[v] = s
		}
	}
	env := jr.Environment
	put(m, "session", session)
	put(m, "service", service)
	put(m, "job", text(env["job"]))
	put(m, "arch", text(env["arch"]))
	put(m, "os", text(env["os"]))
	put(m, "cores", text(env["cores"]))
	put(m, "machine", or(t.Machine, or(text(env["hardware"]), text(env["hostname"]))))
	return clean(m)
}

// put sets a built-in tag; an empty value leaves what a property said.
func put(m map[string]string, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// clean drops what InfluxDB cannot take as a tag: empty keys or values, and the key "time".
func clean(m map[string]string) map[string]string {
	for k, v := range m {
		if k == "" || v == "" || k == "time" {
			delete(m, k)
		}
	}
	return m
}

// text renders a JSON-ish value as a tag value: 4.0 -> "4", true -> "true".
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	default:
		return fmt.Sprint(x)
	}
}
