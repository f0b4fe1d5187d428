package grafana

//lint:file-ignore SA1019 see dashboards.go: the committed dashboards are the v1 JSON model.

import (
	"bytes"
	"encoding/json"

	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// Marshal builds a dashboard and renders it as indented JSON with a final newline, the committed
// form. It fails with the SDK's build errors (each naming the path of what is wrong).
func Marshal(b *dashboard.DashboardBuilder) ([]byte, error) {
	d, err := b.Build()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return unescapeHTML(out.Bytes()), nil
}

// unescapeHTML turns the \u0026, \u003c and \u003e escapes that encoding/json writes inside the
// SDK's own MarshalJSON methods (whatever the encoder's SetEscapeHTML) back into &, < and >.
// It reads escapes in order, so a literal backslash (\\) is never taken for the start of one.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "0026", "003c", "003e":
				r := map[string]byte{"0026": '&', "003c": '<', "003e": '>'}[string(b[i+2:i+6])]
				out = append(out, r)
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}
