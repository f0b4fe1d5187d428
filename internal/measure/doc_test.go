package measure_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

var update = flag.Bool("update", false, "rewrite the generated tables of docs/MEASUREMENTS.md")

const docPath = "../../docs/MEASUREMENTS.md"

// TestMeasurementsDoc fails when the tables in docs/MEASUREMENTS.md differ from the catalog and
// the default counters. `go test ./internal/measure -run Doc -update` rewrites them.
func TestMeasurementsDoc(t *testing.T) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, block := range []struct{ name, body string }{
		{"catalog", catalogTable(measure.List())},
		{"counters", countersTable(measure.DefaultCounters())},
	} {
		doc, err = replaceBlock(doc, block.name, block.body)
		if err != nil {
			t.Fatal(err)
		}
	}
	if doc == string(b) {
		return
	}
	if *update {
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: run go test ./internal/measure -run Doc -update", docPath)
}

// replaceBlock puts body between "<!-- name:start -->" and "<!-- name:end -->".
func replaceBlock(doc, name, body string) (string, error) {
	start, end := "<!-- "+name+":start -->\n", "<!-- "+name+":end -->"
	i := strings.Index(doc, start)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("%s: no %q ... %q block", docPath, strings.TrimSpace(start), end)
	}
	return doc[:i+len(start)] + body + doc[j:], nil
}

func catalogTable(list []api.Metadata) string {
	var b strings.Builder
	b.WriteString("| name | unit | better | aggregate | reduce | meaning |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, m := range list {
		better := m.Direction
		if better == "" {
			better = "-"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", m.Name, m.Unit, better, m.Aggregate, m.Reduce, m.LongDescription)
	}
	return b.String()
}

func countersTable(specs []api.CounterSpec) string {
	var b strings.Builder
	b.WriteString("| metric | read | scale | measurement |\n| --- | --- | --- | --- |\n")
	for _, c := range specs {
		read := c.Read
		if c.Read == measure.ReadQuantile {
			read = fmt.Sprintf("quantile %g", c.Quantile)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %g | `%s` |\n", c.Metric, read, c.Scale, c.Measurement)
	}
	return b.String()
}
