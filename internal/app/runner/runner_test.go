package runner

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/app/httpserver"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

func TestRunPrintsReadyAndStops(t *testing.T) {
	gotPool := make(chan bool, 1)
	app := App{Name: "test", Dispatch: true, Serve: func(ctx context.Context, ln net.Listener, env *Env) error {
		gotPool <- env.Pool != nil
		env.Ready()
		env.Ready()
		<-ctx.Done()
		return nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	out := &testutil.SyncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, app, []string{"--address", "127.0.0.1", "--port", "0", "--dispatch", "partitioned"}, out, slog.New(slog.DiscardHandler))
	}()
	if !<-gotPool {
		t.Errorf("partitioned dispatch gave no pool")
	}
	testutil.Eventually(t, 5*time.Second, "the ready line", func() bool { return out.String() != "" })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if got := out.String(); got != ReadyText+"\n" {
		t.Fatalf("stdout = %q, want the ready text once", got)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	app := App{Name: "test", Dispatch: true, Serve: func(context.Context, net.Listener, *Env) error { return nil }}
	for _, args := range [][]string{{"--dispatch", "global"}, {"--no-such-flag"}, {"--partitions", "-1", "--dispatch", "shared"}} {
		err := Run(context.Background(), app, args, &testutil.SyncBuffer{}, slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), "test") {
			t.Errorf("Run(%v) = %v, want an error naming the app", args, err)
		}
	}
}

// TestRunIOFlag: --io reaches an event-loop app's server, which refuses what it cannot honour
// before the app says it started; an app without event loops has no --io.
func TestRunIOFlag(t *testing.T) {
	h := func() httpserver.Handler {
		return httpserver.HandlerFunc(func(w *httpserver.Response, _ *httpserver.Request) { w.WriteString(200, "text/plain", "") })
	}
	app := App{Name: "loops", Dispatch: true, EventLoops: true, Serve: ServeHTTPEventLoops(h)}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--io", "kqueue"}, `I/O "kqueue": want epoll, uring or auto`},
		{[]string{"--io", "uring", "--dispatch", "shared"}, "--io uring: io_uring serves only the inline event loops"},
	} {
		out := &testutil.SyncBuffer{}
		err := Run(context.Background(), app, append([]string{"--address", "127.0.0.1", "--port", "0"}, tc.args...), out, slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(out.String(), ReadyText) {
			t.Errorf("Run(%v) = %v, stdout %q; want an error with %q and no %q", tc.args, err, out.String(), tc.want, ReadyText)
		}
	}
	plain := App{Name: "plain", Dispatch: true, Serve: ServeHTTP(h)}
	if err := Run(context.Background(), plain, []string{"--io", "uring"}, &testutil.SyncBuffer{}, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "-io") {
		t.Errorf("an app without event loops took --io: %v", err)
	}
}
