// Package grafana generates the Grafana dashboards of dashboards/ (InfluxQL against the schema
// of package influx). `go test ./internal/influx/grafana -update` rewrites the committed JSON;
// without -update the test fails when the committed JSON is not what this package generates.
package grafana

import (
	"bytes"
	"encoding/json"
)

// DatasourceUID is the uid of the InfluxDB datasource that dashboards/provisioning declares.
const DatasourceUID = "crank-influxdb"

// Datasource references the provisioned InfluxDB datasource.
type Datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// influx is the provisioned datasource.
var influx = Datasource{Type: "influxdb", UID: DatasourceUID}

// Dashboard is the part of Grafana's dashboard model these dashboards use.
type Dashboard struct {
	UID           string      `json:"uid"`
	Title         string      `json:"title"`
	Description   string      `json:"description"`
	Tags          []string    `json:"tags"`
	Editable      bool        `json:"editable"`
	SchemaVersion int         `json:"schemaVersion"`
	Version       int         `json:"version"`
	Timezone      string      `json:"timezone"`
	Time          TimeRange   `json:"time"`
	Links         []Link      `json:"links,omitempty"`
	Templating    Templating  `json:"templating"`
	Annotations   Annotations `json:"annotations"`
	Panels        []Panel     `json:"panels"`
}

// TimeRange is the dashboard's default range ("now-30d" to "now").
type TimeRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Templating holds the template variables, resolved in order.
type Templating struct {
	List []Variable `json:"list"`
}

// Variable is a query template variable (SHOW TAG VALUES ...).
type Variable struct {
	Name       string     `json:"name"`
	Label      string     `json:"label"`
	Type       string     `json:"type"`
	Datasource Datasource `json:"datasource"`
	Query      string     `json:"query"`
	Definition string     `json:"definition"`
	Refresh    int        `json:"refresh"` // 1: on dashboard load, 2: on time range change
	Sort       int        `json:"sort"`    // 1: alphabetical, 2: alphabetical descending
	Multi      bool       `json:"multi"`
	IncludeAll bool       `json:"includeAll"`
	AllValue   string     `json:"allValue,omitempty"`
	Current    *Current   `json:"current,omitempty"`
}

// Current is a variable's default selection.
type Current struct {
	Text  string `json:"text"`
	Value string `json:"value"`
}

// Annotations are queries whose rows become marks on the time axis.
type Annotations struct {
	List []Annotation `json:"list"`
}

// Annotation is an InfluxQL annotation query: each row is a mark, textColumn its text.
type Annotation struct {
	Name        string     `json:"name"`
	Datasource  Datasource `json:"datasource"`
	Enable      bool       `json:"enable"`
	IconColor   string     `json:"iconColor"`
	Query       string     `json:"query"`
	TextColumn  string     `json:"textColumn"`
	TagsColumn  string     `json:"tagsColumn,omitempty"`
	TitleColumn string     `json:"titleColumn,omitempty"`
	// TimeEndColumn names the column holding the end of a region (epoch ms).
	TimeEndColumn string `json:"timeEndColumn,omitempty"`
}

// Link is a dashboard link (to another dashboard, keeping the time range and variables).
type Link struct {
	Title       string   `json:"title"`
	Type        string   `json:"type"` // "link", or "dashboards" (those of Tags)
	URL         string   `json:"url,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	AsDropdown  bool     `json:"asDropdown"`
	KeepTime    bool     `json:"keepTime"`
	IncludeVars bool     `json:"includeVars"`
}

// Panel is a time series, table, stat or x/y chart panel, or a row (no datasource, no query).
type Panel struct {
	ID              int              `json:"id"`
	Type            string           `json:"type"`
	Title           string           `json:"title"`
	Description     string           `json:"description,omitempty"`
	Datasource      *Datasource      `json:"datasource,omitempty"`
	GridPos         GridPos          `json:"gridPos"`
	Targets         []Target         `json:"targets,omitempty"`
	FieldConfig     *FieldConfig     `json:"fieldConfig,omitempty"`
	Options         map[string]any   `json:"options,omitempty"`
	Transformations []Transformation `json:"transformations,omitempty"`
	Collapsed       *bool            `json:"collapsed,omitempty"` // rows only
}

// Transformation is a Grafana transformation of a panel's query results.
type Transformation struct {
	ID      string         `json:"id"`
	Options map[string]any `json:"options"`
}

// GridPos places a panel on the 24-column grid.
type GridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

// Target is one raw InfluxQL query of a panel.
type Target struct {
	RefID        string     `json:"refId"`
	Datasource   Datasource `json:"datasource"`
	Query        string     `json:"query"`
	RawQuery     bool       `json:"rawQuery"`
	ResultFormat string     `json:"resultFormat"`
	Alias        string     `json:"alias,omitempty"`
}

// FieldConfig sets the unit of a panel's values, and per-field overrides (units, links).
type FieldConfig struct {
	Defaults  FieldDefaults `json:"defaults"`
	Overrides []Override    `json:"overrides"`
}

// FieldDefaults holds the unit ("reqps", "ms", "percent", "suffix: ms/s").
type FieldDefaults struct {
	Unit string `json:"unit,omitempty"`
}

// Override sets properties of the fields a matcher selects ({"id": "byName", "options": "p99"}).
type Override struct {
	Matcher    Matcher    `json:"matcher"`
	Properties []Property `json:"properties"`
}

// Matcher selects fields.
type Matcher struct {
	ID      string `json:"id"`
	Options string `json:"options"`
}

// Property is one field property: "unit" (a string) or "links" ([]DataLink).
type Property struct {
	ID    string `json:"id"`
	Value any    `json:"value"`
}

// DataLink is a link from a cell or point.
type DataLink struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Marshal renders a dashboard as indented JSON with a final newline, the committed form.
func Marshal(d Dashboard) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
