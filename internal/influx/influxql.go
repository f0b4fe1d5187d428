package influx

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Series is one series of an InfluxQL answer. Times are in milliseconds since the epoch.
type Series struct {
	Name    string            `json:"name"`
	Tags    map[string]string `json:"tags"`
	Columns []string          `json:"columns"`
	Values  [][]any           `json:"values"`
}

// Column returns the values of one column, or nil when the series has no such column.
func (s Series) Column(name string) []any {
	for i, c := range s.Columns {
		if c == name {
			out := make([]any, 0, len(s.Values))
			for _, row := range s.Values {
				out = append(out, row[i])
			}
			return out
		}
	}
	return nil
}

// Query runs one InfluxQL statement against an InfluxDB 1.x /query endpoint (token as in
// Config: empty, or "user:password") and returns its series.
func Query(ctx context.Context, base, token, db, q string) ([]Series, error) {
	form := url.Values{"q": {q}, "db": {db}, "epoch": {"ms"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+"/query",
		strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user, pass, ok := strings.Cut(token, ":"); ok {
		req.SetBasicAuth(user, pass)
	} else if token != "" {
		req.Header.Set("Authorization", "Token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", q, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", q, err)
	}
	var ans struct {
		Error   string `json:"error"`
		Results []struct {
			Error  string   `json:"error"`
			Series []Series `json:"series"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("query %q: status %d: %.200s", q, resp.StatusCode, body)
	}
	if ans.Error != "" {
		return nil, fmt.Errorf("query %q: %s", q, ans.Error)
	}
	var out []Series
	for _, r := range ans.Results {
		if r.Error != "" {
			return nil, fmt.Errorf("query %q: %s", q, r.Error)
		}
		out = append(out, r.Series...)
	}
	return out, nil
}
