package influx

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"
)

// TestSpoolOfAnotherUser: a spool folder another local user made (or may write), with a planted
// .lp file, is refused, not sent with this user's InfluxDB token (issue 25, 11).
func TestSpoolOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the folder to another user")
	}
	dir := filepath.Join(t.TempDir(), "spool")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "20260101T000000.000000000Z-x-00000000"+SpoolExt), []byte("m v=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := (Spool{Dir: dir}).List(); err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("List: %v, want a refusal", err)
	}
	if _, err := (Spool{Dir: dir}).Save("run", nil, []string{"m v=1"}); err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("Save into another user's spool: %v, want a refusal", err)
	}
}

// TestTrailingBackslashTag: a tag value ending in a backslash does not make the run's lines invalid
// (issue 25, 10): every line still parses as line protocol with the tag's value kept but for it.
func TestTrailingBackslashTag(t *testing.T) {
	lines, err := Lines([]*write.Point{summaryPoint(map[string]float64{"v": 1}, map[string]string{"bs": `end\`, "ok": "x"}, time.Unix(1, 0))})
	if err != nil || len(lines) != 1 || lines[0] != "crank_summary,bs=end,ok=x v=1 1000000000" {
		t.Errorf("lines %q (%v), want the tag kept but for its trailing backslash", lines, err)
	}
}
