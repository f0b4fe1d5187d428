package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/influxtest"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestFirstRequestReported: each HTTP load job (ours for wrk, bombardier, h2load and the
// built-in generator, and crank's own wrk.yml run natively) loads a server that holds its first
// response back 500 ms. The run reports http/firstrequest between 500 and 1500 ms in the table
// , in the JSON (with crank's description, "First Request (ms)") and, for wrk, in InfluxDB.
func TestFirstRequestReported(t *testing.T) {
	jobs := filepath.Join(testEnv.root, "scenarios", "jobs")
	for _, c := range []struct{ name, tool, imp, job, vars string }{
		{"wrk", "wrk", filepath.Join(jobs, "wrk.yml"), "wrk", ""},
		{"bombardier", "", filepath.Join(jobs, "bombardier.yml"), "bombardier", ""},
		{"h2load", "h2load", filepath.Join(jobs, "h2load.yml"), "h2load", "        streams: 1\n"},
		{"builtin", "", filepath.Join(jobs, "builtin.yml"), "builtin", ""},
		{"crank-wrk.yml", "wrk", filepath.Join(testEnv.root, "internal/e2e/testdata/crank/wrk.yml"), "wrk", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.tool != "" {
				needTool(t, c.tool)
			}
			addr, served := testutil.ServeSlowFirst(t, 500*time.Millisecond)
			host, port, _ := strings.Cut(addr, ":")
			dir := t.TempDir()
			cfg := filepath.Join(dir, "fr.yml")
			yml := fmt.Sprintf("imports:\n  - %s\nscenarios:\n  fr:\n    load:\n      job: %s\n      variables:\n"+
				"        serverAddress: %s\n        serverPort: %s\n        duration: 1\n        warmup: 1\n        threads: 1\n"+
				"        connections: 2\n%s", c.imp, c.job, host, port, c.vars)
			if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.json")
			args := []string{"--config", cfg, "--scenario", "fr", "--json", out}
			env := []string{"CRANK_SPOOL_DIR=" + t.TempDir()}
			var db *influxtest.Server
			if c.name == "wrk" {
				db = influxtest.Start(t)
				args = append(args, "--influx-url", db.URL, "--influx-bucket", db.DB+"/autogen")
			}
			r := crankEnv(t, 2*time.Minute, env, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			got := readResult(t, out).JobResults.Jobs["load"].Results["http/firstrequest"]
			if row := fmt.Sprintf(`\|\s*http/firstrequest\s*\|\s*%.0f\s*\|\s*ms\s*\|`, got); !regexp.MustCompile(row).MatchString(r.stdout) {
				t.Errorf("no table row %s in\n%s", row, r.stdout)
			}
			if got < 500 || got > 1500 {
				t.Errorf("http/firstrequest = %v, want 500 to 1500 ms", got)
			}
			if served.Load() < 3 {
				t.Errorf("the server answered %d requests", served.Load())
			}
			checkFirstRequestMetadata(t, out)
			if c.name == "wrk" {
				s, err := influx.Query(context.Background(), db.URL, "", db.DB,
					`SELECT "http/firstrequest" FROM "crank_summary" WHERE "service" = 'load'`)
				if err != nil || len(s) == 0 || len(s[0].Values) != 1 {
					t.Fatalf("query: %v %+v", err, s)
				}
				if v, _ := strconv.ParseFloat(fmt.Sprint(s[0].Values[0][1]), 64); v != got {
					t.Errorf("influx http/firstrequest %v, json %v", v, got)
				}
			}
		})
	}
}

// checkFirstRequestMetadata: the JSON's metadata entry for http/firstrequest is crank's.
func checkFirstRequestMetadata(t *testing.T, out string) {
	t.Helper()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		JobResults struct {
			Jobs map[string]struct {
				Metadata []map[string]any `json:"metadata"`
			} `json:"jobs"`
		} `json:"jobResults"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	for _, m := range res.JobResults.Jobs["load"].Metadata {
		if m["name"] == "http/firstrequest" {
			if m["description"] != "First Request (ms)" || m["longDescription"] != "Time to first request in ms" || m["format"] != "n0" {
				t.Errorf("metadata %v", m)
			}
			return
		}
	}
	t.Errorf("no http/firstrequest metadata")
}
