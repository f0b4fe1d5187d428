package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestStartAtMeasuredRunOnly: a load's one start reaches its measured run as CRANK_LOAD_START_AT,
// not its warm-up run.
func TestStartAtMeasuredRunOnly(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	at := time.Date(2026, 3, 4, 5, 6, 7, 890000000, time.UTC)
	id := ta.submit(t, api.Job{Executable: "sh", WaitForExit: true, StartAt: &at,
		WarmupArguments: `-c 'echo warm=[$CRANK_LOAD_START_AT]'`,
		Arguments:       `-c 'echo measured=[$CRANK_LOAD_START_AT]'`})
	if st := ta.waitState(t, id, api.StateStopped, api.StateFailed); st.State != api.StateStopped {
		t.Fatalf("status %+v", st)
	}
	out, _ := ta.c.Output(context.Background(), id, 0)
	for _, want := range []string{"warm=[]", "measured=[2026-03-04T05:06:07.89Z]"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
}
