package influx

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
	if _, err := (Spool{Dir: dir}).Save("run", nil, []string{"m v=1"}); err == nil {
		t.Error("Save into another user's spool succeeded")
	}
}
