package influxtest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestStartCreatesDatabaseAndRestarts(t *testing.T) {
	s := Start(t)
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q is not on loopback", s.URL)
	}
	ctx := context.Background()
	if err := s.Exec(ctx, `CREATE RETENTION POLICY "short" ON "crank" DURATION 1h REPLICATION 1`); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if _, err := http.Get(s.URL + "/ping"); err == nil {
		t.Fatal("influxd still answers after Stop")
	}
	s.Restart()
	resp, err := http.Get(s.URL + "/query?q=SHOW+DATABASES")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `["crank"]`) {
		t.Fatalf("SHOW DATABASES after restart = %s, want crank kept", b)
	}
	if err := s.Exec(ctx, "NOT INFLUXQL"); err == nil || !strings.Contains(err.Error(), "NOT INFLUXQL: status 400") {
		t.Fatalf("Exec of a bad statement: %v, want InfluxDB's 400", err)
	}
}
