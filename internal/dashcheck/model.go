package dashcheck

import (
	"encoding/json"
	"fmt"
)

// board is the part of a Grafana dashboard (JSON model) that CheckDashboards validates and runs.
type board struct {
	Title      string `json:"title"`
	Templating struct {
		List []boardVar `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []boardAnnotation `json:"list"`
	} `json:"annotations"`
	Panels []boardPanel `json:"panels"`
}

// dsRef is a datasource reference: {"type": "influxdb", "uid": "..."}; a bare string (a
// datasource name, Grafana's old form) is kept in Name.
type dsRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
	Name string `json:"-"`
}

func (d *dsRef) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		d.Name = name
		return nil
	}
	type plain dsRef
	return json.Unmarshal(b, (*plain)(d))
}

type boardVar struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	Query      any    `json:"query"` // a string for InfluxQL; Grafana may store an object
	Datasource *dsRef `json:"datasource"`
	Multi      bool   `json:"multi"`
	IncludeAll bool   `json:"includeAll"`
	AllValue   string `json:"allValue"`
	Current    *struct {
		Value any `json:"value"`
	} `json:"current"`
	Options []struct {
		Value string `json:"value"`
	} `json:"options"`
}

// query is the variable's InfluxQL text.
func (v boardVar) query() string {
	switch q := v.Query.(type) {
	case string:
		return q
	case map[string]any:
		s, _ := q["query"].(string)
		return s
	}
	return ""
}

// defaults are the variable's default values ("$__all" for All).
func (v boardVar) defaults() []string {
	if v.Current == nil {
		return nil
	}
	switch x := v.Current.Value.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

type boardAnnotation struct {
	Name       string `json:"name"`
	Datasource *dsRef `json:"datasource"`
	BuiltIn    int    `json:"builtIn"`
	// annotationQuery holds the legacy form: the query and its columns beside the name.
	annotationQuery
	// Target is the current form (Grafana 10 and later, and Grafana's SDK): the query and its
	// columns in the annotation's target.
	Target *struct {
		Datasource *dsRef `json:"datasource"`
		annotationQuery
	} `json:"target"`
}

// annotationQuery is an InfluxQL annotation query: each row is a mark, TextColumn its text.
type annotationQuery struct {
	Query         string `json:"query"`
	TextColumn    string `json:"textColumn"`
	TagsColumn    string `json:"tagsColumn"`
	TitleColumn   string `json:"titleColumn"`
	TimeEndColumn string `json:"timeEndColumn"`
}

// influxQL is the annotation's query as Grafana's InfluxDB datasource reads it: its target's when
// the target holds a query, else the legacy fields.
func (a boardAnnotation) influxQL() annotationQuery {
	if a.Target != nil && a.Target.Query != "" {
		return a.Target.annotationQuery
	}
	return a.annotationQuery
}

type boardPanel struct {
	ID         int    `json:"id"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource *dsRef `json:"datasource"`
	GridPos    struct {
		H int `json:"h"`
		W int `json:"w"`
		X int `json:"x"`
		Y int `json:"y"`
	} `json:"gridPos"`
	Targets     []boardTarget `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
		Overrides []struct {
			Matcher struct {
				ID      string `json:"id"`
				Options any    `json:"options"`
			} `json:"matcher"`
			Properties []struct {
				ID    string `json:"id"`
				Value any    `json:"value"`
			} `json:"properties"`
		} `json:"overrides"`
	} `json:"fieldConfig"`
	Options         map[string]any `json:"options"`
	Transformations []struct {
		ID      string         `json:"id"`
		Options map[string]any `json:"options"`
	} `json:"transformations"`
	Panels []boardPanel `json:"panels"` // inside a collapsed row
}

type boardTarget struct {
	RefID        string `json:"refId"`
	Datasource   *dsRef `json:"datasource"`
	Query        string `json:"query"`
	RawQuery     bool   `json:"rawQuery"`
	ResultFormat string `json:"resultFormat"`
}

func flatten(panels []boardPanel) []boardPanel {
	var out []boardPanel
	for _, p := range panels {
		out = append(out, p)
		out = append(out, flatten(p.Panels)...)
	}
	return out
}
