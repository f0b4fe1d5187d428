package main

import (
	"context"
	"testing"

	"github.com/bufbuild/protocompile"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestProtoMatchesGenerated compiles proto/ and checks every declared message field, enum value
// and method against the descriptors compiled into grpc-go's grpc_testing package, so that
// clients using proto/ talk to this server on the same wire format.
func TestProtoMatchesGenerated(t *testing.T) {
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{ImportPaths: []string{"proto"}}}
	files, err := c.Compile(context.Background(), "grpc/testing/benchmark_service.proto")
	if err != nil {
		t.Fatalf("compile proto/: %v", err)
	}
	svc := files[0].Services().ByName("BenchmarkService")
	gen := testpb.File_grpc_testing_benchmark_service_proto.Services().ByName("BenchmarkService")
	if svc == nil || gen == nil || svc.Methods().Len() != gen.Methods().Len() {
		t.Fatalf("BenchmarkService methods differ")
	}
	for i := range svc.Methods().Len() {
		m := svc.Methods().Get(i)
		g := gen.Methods().ByName(m.Name())
		if g == nil || m.Input().FullName() != g.Input().FullName() || m.Output().FullName() != g.Output().FullName() ||
			m.IsStreamingClient() != g.IsStreamingClient() || m.IsStreamingServer() != g.IsStreamingServer() {
			t.Errorf("method %s differs from the generated one", m.Name())
		}
	}
	msgs := files[0].Imports().Get(0).FileDescriptor
	genMsgs := testpb.File_grpc_testing_messages_proto
	for i := range msgs.Messages().Len() {
		compareMessage(t, msgs.Messages().Get(i), genMsgs.Messages().ByName(msgs.Messages().Get(i).Name()))
	}
	for i := range msgs.Enums().Len() {
		e := msgs.Enums().Get(i)
		g := genMsgs.Enums().ByName(e.Name())
		if g == nil || e.Values().Len() != g.Values().Len() {
			t.Errorf("enum %s differs", e.Name())
			continue
		}
		for j := range e.Values().Len() {
			v := e.Values().Get(j)
			if gv := g.Values().ByName(v.Name()); gv == nil || gv.Number() != v.Number() {
				t.Errorf("enum value %s differs", v.FullName())
			}
		}
	}
}

func compareMessage(t *testing.T, m, g protoreflect.MessageDescriptor) {
	if g == nil {
		t.Errorf("message %s is not in grpc_testing", m.FullName())
		return
	}
	for i := range m.Fields().Len() {
		f := m.Fields().Get(i)
		gf := g.Fields().ByNumber(f.Number())
		if gf == nil || gf.Name() != f.Name() || gf.Kind() != f.Kind() || gf.Cardinality() != f.Cardinality() {
			t.Errorf("field %s = %d differs from grpc_testing", f.FullName(), f.Number())
			continue
		}
		if f.Message() != nil && f.Message().FullName() != gf.Message().FullName() ||
			f.Enum() != nil && f.Enum().FullName() != gf.Enum().FullName() {
			t.Errorf("field %s has another type than in grpc_testing", f.FullName())
		}
	}
}
