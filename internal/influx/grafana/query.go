// Package grafana builds the Grafana dashboards of dashboards/ (InfluxQL against the schema of
// package influx) with Grafana's Go SDK (github.com/grafana/grafana-foundation-sdk/go).
// `go test ./internal/influx/grafana -update` rewrites the committed JSON; without -update the
// test fails when the committed JSON is not what this package builds.
package grafana

import (
	"errors"
	"fmt"
	"slices"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
)

// DatasourceUID is the uid of the InfluxDB datasource that dashboards/provisioning declares.
const DatasourceUID = "crank-influxdb"

// influx references the provisioned InfluxDB datasource (a new reference each time: the SDK's
// model holds pointers).
func influx() common.DataSourceRef {
	return common.DataSourceRef{Type: cog.ToPtr("influxdb"), Uid: cog.ToPtr(DatasourceUID)}
}

// resultFormats are the InfluxQL target's result formats.
var resultFormats = []string{"time_series", "table", "logs"}

// Query is a raw InfluxQL query of Grafana's InfluxDB datasource: a panel target, or an
// annotation's target (FromAnnotations, with the columns that make each mark). The SDK has no
// InfluxDB query type; Query is one of its data query variants.
type Query struct {
	RefID        string               `json:"refId"`
	Datasource   common.DataSourceRef `json:"datasource"`
	Query        string               `json:"query"`
	RawQuery     bool                 `json:"rawQuery"`
	ResultFormat string               `json:"resultFormat,omitempty"`
	Alias        string               `json:"alias,omitempty"`
	// FromAnnotations marks an annotation's query, as Grafana's annotation editor does; the
	// columns name the text, title, tags (comma-separated) and region end (epoch ms) of a mark.
	FromAnnotations bool   `json:"fromAnnotations,omitempty"`
	TextColumn      string `json:"textColumn,omitempty"`
	TitleColumn     string `json:"titleColumn,omitempty"`
	TagsColumn      string `json:"tagsColumn,omitempty"`
	TimeEndColumn   string `json:"timeEndColumn,omitempty"`
}

var _ variants.Dataquery = Query{}
var _ cog.Builder[variants.Dataquery] = Query{}

// ImplementsDataqueryVariant makes Query a data query of the SDK.
func (Query) ImplementsDataqueryVariant() {}

// DataqueryType is the datasource plugin the query is for.
func (Query) DataqueryType() string { return "influxdb" }

// Equals tells whether other is the same query.
func (q Query) Equals(other variants.Dataquery) bool {
	o, ok := other.(Query)
	return ok && o == q
}

// Validate checks that the query is raw InfluxQL, with a known result format for a panel target
// and a text column for an annotation.
func (q Query) Validate() error {
	var errs []error
	if q.Query == "" || !q.RawQuery {
		errs = append(errs, errors.New("not a raw InfluxQL query"))
	}
	if q.FromAnnotations && q.TextColumn == "" {
		errs = append(errs, errors.New("annotation query without a text column"))
	}
	if !q.FromAnnotations && !slices.Contains(resultFormats, q.ResultFormat) {
		errs = append(errs, fmt.Errorf("resultFormat %q, want one of %v", q.ResultFormat, resultFormats))
	}
	return errors.Join(errs...)
}

// Build makes Query its own builder: a panel's WithTarget or an annotation's Target takes it.
func (q Query) Build() (variants.Dataquery, error) {
	if err := q.Validate(); err != nil {
		return nil, cog.MakeBuildErrors("influxql["+q.RefID+"]", err)
	}
	return q, nil
}

// target is a raw InfluxQL panel target.
func target(ref, format, query, alias string) Query {
	return Query{RefID: ref, Datasource: influx(), Query: query, RawQuery: true, ResultFormat: format, Alias: alias}
}
