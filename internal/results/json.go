package results

import (
	"encoding/json"
	"sort"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/loadtool"
)

// jobResultJSON is JobResult as written: results hold numbers and, as crank's do, other values
// (strings such as netSdkVersion, objects).
type jobResultJSON struct {
	Results      map[string]any       `json:"results"`
	Metadata     []metadataJSON       `json:"metadata"`
	Measurements json.RawMessage      `json:"measurements"`
	Environment  map[string]any       `json:"environment"`
	Variables    map[string]any       `json:"variables"`
	Iterations   []map[string]float64 `json:"iterations,omitempty"`
	// With several iterations (result.go says what each holds).
	Spread            map[string]Spread `json:"spread,omitempty"`
	Excluded          []int             `json:"excluded,omitempty"`
	TimelineIteration int               `json:"timelineIteration,omitempty"`
	NotMeasured       map[string]string `json:"notMeasured,omitempty"`
	Generators        []Generator       `json:"generators,omitempty"`
	Approximate       map[string]string `json:"approximate,omitempty"`
	LoadTool          *loadtool.Model   `json:"loadTool,omitempty"`
	Profiles          []Profile         `json:"profiles,omitempty"`
}

// metadataJSON is api.Metadata plus crank's description (the label crank's tables show), which
// is the short description.
type metadataJSON struct {
	Source           string `json:"source,omitempty"`
	Name             string `json:"name"`
	Aggregate        string `json:"aggregate,omitempty"`
	Reduce           string `json:"reduce,omitempty"`
	Format           string `json:"format"`
	Unit             string `json:"unit,omitempty"`
	Description      string `json:"description"`
	ShortDescription string `json:"shortDescription,omitempty"`
	LongDescription  string `json:"longDescription,omitempty"`
	Direction        string `json:"direction,omitempty"`
}

// MarshalJSON writes crank's shape: numbers and Values together under results, and a description
// on every metadata entry.
func (j JobResult) MarshalJSON() ([]byte, error) {
	out := jobResultJSON{Results: map[string]any{}, Environment: j.Environment, Variables: j.Variables,
		Iterations: j.Iterations, Metadata: []metadataJSON{},
		Spread: j.Spread, Excluded: j.Excluded, TimelineIteration: j.TimelineIteration, NotMeasured: j.NotMeasured,
		Generators: j.Generators, Approximate: j.Approximate, LoadTool: j.LoadTool, Profiles: j.Profiles}
	for k, v := range j.Values {
		out.Results[k] = v
	}
	for k, v := range j.Results {
		out.Results[k] = v
	}
	for _, m := range j.Metadata {
		d := m.ShortDescription
		if d == "" {
			d = m.Name
		}
		out.Metadata = append(out.Metadata, metadataJSON{Source: m.Source, Name: m.Name, Aggregate: string(m.Aggregate),
			Reduce: string(m.Reduce), Format: m.Format, Unit: m.Unit, Description: d,
			ShortDescription: m.ShortDescription, LongDescription: m.LongDescription, Direction: m.Direction})
	}
	ms := j.Measurements
	if ms == nil {
		ms = [][]api.Measurement{}
	}
	b, err := json.Marshal(ms)
	if err != nil {
		return nil, err
	}
	out.Measurements = b
	return json.Marshal(out)
}

// UnmarshalJSON reads ours and crank's: numeric results go to Results, others to Values; crank's
// metadata (name, description, format) becomes metadata with that description.
func (j *JobResult) UnmarshalJSON(b []byte) error {
	var in jobResultJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*j = JobResult{Results: map[string]float64{}, Environment: in.Environment, Variables: in.Variables, Iterations: in.Iterations,
		Spread: in.Spread, Excluded: in.Excluded, TimelineIteration: in.TimelineIteration, NotMeasured: in.NotMeasured,
		Generators: in.Generators, Approximate: in.Approximate, LoadTool: in.LoadTool, Profiles: in.Profiles}
	names := make([]string, 0, len(in.Results))
	for k := range in.Results {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if f, ok := in.Results[k].(float64); ok {
			j.Results[k] = f
			continue
		}
		if j.Values == nil {
			j.Values = map[string]any{}
		}
		j.Values[k] = in.Results[k]
	}
	for _, m := range in.Metadata {
		short := m.ShortDescription
		if short == "" {
			short = m.Description
		}
		j.Metadata = append(j.Metadata, api.Metadata{Source: m.Source, Name: m.Name, Aggregate: api.Operation(m.Aggregate),
			Reduce: api.Operation(m.Reduce), Format: m.Format, Unit: m.Unit, ShortDescription: short, LongDescription: m.LongDescription, Direction: m.Direction})
	}
	if len(in.Measurements) > 0 && string(in.Measurements) != "null" {
		if err := json.Unmarshal(in.Measurements, &j.Measurements); err != nil {
			// crank's measurements are its own shape; they are not needed to compare results.
			j.Measurements = nil
		}
	}
	return nil
}
