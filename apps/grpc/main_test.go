package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/crankshaft/crankshaft/internal/app/apptest"
	"github.com/crankshaft/crankshaft/internal/app/metrics"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

func TestGRPC(t *testing.T) {
	bin := apptest.Build(t, "github.com/crankshaft/crankshaft/apps/grpc")
	p := apptest.Start(t, bin)
	conn, err := grpc.NewClient(p.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := testpb.NewBenchmarkServiceClient(conn)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()

	t.Run("unary", func(t *testing.T) { checkUnary(ctx, t, client) })
	t.Run("streaming ping-pong", func(t *testing.T) { checkStreaming(ctx, t, client) })
	t.Run("streaming from client", func(t *testing.T) { checkFromClient(ctx, t, client) })
	t.Run("streaming from server", func(t *testing.T) { checkFromServer(ctx, t, client) })
	t.Run("ghz", func(t *testing.T) { checkGhz(t, p.Addr) })
	t.Run("h2load", func(t *testing.T) { checkH2load(t, p.Addr) })
	before, _ := apptest.Value(apptest.Scrape(t, p.MetricsAddr), metrics.RequestsTotal, nil)
	t.Run("unknown method", func(t *testing.T) { checkUnknown(ctx, t, conn) })
	t.Run("metrics", func(t *testing.T) {
		mfs := apptest.Scrape(t, p.MetricsAddr)
		if n, _ := apptest.Value(mfs, metrics.RequestsTotal, nil); n != before {
			t.Errorf("%s = %v after the unknown method's call, want %v: it reached no handler", metrics.RequestsTotal, n, before)
		}
		failed := map[string]float64{}
		for _, m := range mfs[metrics.ExceptionsTotal].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" && m.GetCounter().GetValue() > 0 {
					failed[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
		if want := map[string]float64{metrics.KindBadRequest: 1, "grpc_unimplemented": 1}; !maps.Equal(failed, want) {
			t.Errorf("exceptions by kind %v, want %v (the streams the client closed are no failure)", failed, want)
		}
		for _, name := range []string{metrics.MutexWaitSeconds, metrics.SchedLatencies, metrics.QueueLength} {
			if _, ok := mfs[name]; !ok {
				t.Errorf("metric %s missing", name)
			}
		}
		if n, _ := apptest.Value(mfs, metrics.RequestsTotal, nil); n < 300 {
			t.Errorf("%s = %v, want >= 300 (ghz and h2load calls included)", metrics.RequestsTotal, n)
		}
	})
}

func checkUnary(ctx context.Context, t *testing.T, c testpb.BenchmarkServiceClient) {
	for _, size := range []int32{0, 1, 100, 64 << 10} {
		resp, err := c.UnaryCall(ctx, &testpb.SimpleRequest{ResponseSize: size, Payload: &testpb.Payload{Body: []byte("ping")}})
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if got := len(resp.GetPayload().GetBody()); got != int(size) {
			t.Fatalf("payload %d bytes, want %d", got, size)
		}
	}
	_, err := c.UnaryCall(ctx, &testpb.SimpleRequest{ResponseSize: -1})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("size -1: %v, want InvalidArgument", err)
	}
}

func checkStreaming(ctx context.Context, t *testing.T, c testpb.BenchmarkServiceClient) {
	stream, err := c.StreamingCall(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for size := range int32(5) {
		if err := stream.Send(&testpb.SimpleRequest{ResponseSize: size * 10}); err != nil {
			t.Fatal(err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if got := len(resp.GetPayload().GetBody()); got != int(size*10) {
			t.Fatalf("message %d: payload %d bytes, want %d", size, got, size*10)
		}
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != io.EOF {
		t.Fatalf("after CloseSend: %v, want EOF", err)
	}
}

func checkFromClient(ctx context.Context, t *testing.T, c testpb.BenchmarkServiceClient) {
	stream, err := c.StreamingFromClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for size := range int32(3) {
		if err := stream.Send(&testpb.SimpleRequest{ResponseSize: 7 + size}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil || len(resp.GetPayload().GetBody()) != 9 {
		t.Fatalf("response %v, %v; want a 9-byte payload (the last request's size)", resp, err)
	}
}

func checkFromServer(ctx context.Context, t *testing.T, c testpb.BenchmarkServiceClient) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.StreamingFromServer(sctx, &testpb.SimpleRequest{ResponseSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		resp, err := stream.Recv()
		if err != nil || len(resp.GetPayload().GetBody()) != 3 {
			t.Fatalf("message %d: %v, %v", i, resp, err)
		}
	}
}

// checkUnknown calls a method BenchmarkService does not have, as a scenario with a wrong path
// does: Unimplemented.
func checkUnknown(ctx context.Context, t *testing.T, conn *grpc.ClientConn) {
	err := conn.Invoke(ctx, "/grpc.testing.BenchmarkService/Nope", &testpb.SimpleRequest{}, &testpb.SimpleResponse{})
	if status.Code(err) != codes.Unimplemented {
		t.Fatalf("unknown method: %v, want Unimplemented", err)
	}
}

// checkGhz runs ghz with the shipped .proto files: 200 unary calls, all OK.
func checkGhz(t *testing.T, addr string) {
	out, err := exec.Command("go", "tool", "ghz", "--insecure",
		"--proto", filepath.Join("proto", "grpc", "testing", "benchmark_service.proto"),
		"--import-paths", "proto",
		"--call", "grpc.testing.BenchmarkService.UnaryCall",
		"-d", `{"response_size": 10}`, "-n", "200", "-c", "10", "--format", "json", addr).Output()
	if err != nil {
		t.Fatalf("ghz: %v\n%s", err, out)
	}
	var report struct {
		Count        int            `json:"count"`
		StatusCodes  map[string]int `json:"statusCodeDistribution"`
		ErrorsByType map[string]int `json:"errorDistribution"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("ghz report: %v\n%s", err, out)
	}
	if report.Count != 200 || report.StatusCodes["OK"] != 200 {
		t.Fatalf("ghz: count %d, status codes %v, errors %v; want 200 OK", report.Count, report.StatusCodes, report.ErrorsByType)
	}
}

// checkH2load sends unary calls as plain HTTP/2 (prior knowledge) POSTs with h2load.
func checkH2load(t *testing.T, addr string) {
	h2load, err := exec.LookPath("h2load")
	if err != nil {
		testutil.Missing(t, "h2load is not installed (apt-get install nghttp2-client)")
	}
	msg, err := proto.Marshal(&testpb.SimpleRequest{ResponseSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	frame := append([]byte{0, 0, 0, 0, 0}, msg...) // gRPC framing: uncompressed flag, length
	binary.BigEndian.PutUint32(frame[1:5], uint32(len(msg)))
	data := filepath.Join(t.TempDir(), "request.bin")
	if err := os.WriteFile(data, frame, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(h2load, "-n", "100", "-c", "2", "-m", "4", "-d", data,
		"-H", "content-type: application/grpc", "-H", "te: trailers",
		"http://"+addr+"/grpc.testing.BenchmarkService/UnaryCall").CombinedOutput()
	if err != nil {
		t.Fatalf("h2load: %v\n%s", err, out)
	}
	for _, want := range []string{`requests: 100 total, 100 started, 100 done, 100 succeeded`, `status codes: 100 2xx`} {
		if !regexp.MustCompile(regexp.QuoteMeta(want)).Match(out) {
			t.Fatalf("h2load output lacks %q:\n%s", want, out)
		}
	}
}
