package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestStartQueryStop(t *testing.T) {
	var s *Server
	t.Run("server", func(t *testing.T) {
		s = Start(t)
		url := s.CreateDatabase(t, "demo", "CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2), (3);")
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, "SELECT sum(id) FROM t").Scan(&n); err != nil || n != 6 {
			t.Fatalf("sum = %d, %v; want 6", n, err)
		}
		if len(processesIn(s.DataDir)) == 0 {
			t.Fatalf("no process found in %s while the server runs", s.DataDir)
		}
	})
	if s == nil {
		return
	}
	if pids := processesIn(s.DataDir); len(pids) != 0 {
		t.Fatalf("processes left after the subtest's cleanup: %v", pids)
	}
}
