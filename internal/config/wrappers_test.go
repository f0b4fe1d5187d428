package config

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
)

// The wrappers' command lines, as crank's wrk.yml, bombardier.yml and h2load.yml render them,
// become the tools' own: measured run, warm-up run, build step.
func TestWrapperArguments(t *testing.T) {
	cases := []struct {
		name, args                    string
		measured, warmup, build, fail string
	}{
		{name: "wrk", args: `-c 256  http://a:5000/p  --latency -d 15s -w 5s -t 32 --header "Accept: x y"   -s scripts/pipeline.lua -- 16 `,
			measured: `-d 15s -c 256 http://a:5000/p --latency -t 32 --header 'Accept: x y' -s scripts/pipeline.lua -- 16`,
			warmup:   `-d 5s -c 256 http://a:5000/p --latency -t 32 --header 'Accept: x y' -s scripts/pipeline.lua -- 16`},
		{name: "wrk", args: `-c 1 http://a/ -d 3s -w 0s`, measured: `-d 3s -c 1 http://a/`},
		{name: "wrk", args: `-c 1 http://a/ -d 3s -s https://x.test/a.lua -- 4`, measured: `-d 3s -c 1 http://a/ -s crank-wrk-script.lua -- 4`,
			build: `curl -fsSL --max-time 60 -o crank-wrk-script.lua -- 'https://x.test/a.lua'`},
		{name: "wrk", args: `-c 1 http://a/`, fail: "no -d DURATION"},
		{name: "bombardier", args: `-c 256 -w 15 -d 15 -n 0 -t 2s --insecure -l  --fasthttp  http://a:5000/p`,
			measured: `-d 15s -c 256 -t 2s --insecure -l --fasthttp http://a:5000/p --print r --format json`,
			warmup:   `-d 15s -c 256 -t 2s --insecure -l --fasthttp http://a:5000/p --print r --format json`},
		{name: "bombardier", args: `-c 8 -w 0 -d 15 -n 500 http://a/`, measured: `-n 500 -c 8 http://a/ --print r --format json`},
		{name: "bombardier", args: `-c 8 -o plain-text -d 3 http://a/`, fail: "the bombardier parser reads json"},
		{name: "h2load", args: `-c 4 -t 1 -m 10 -d 15 -w 5 -n 0 -u  http://a:5000/g  -p h2c --header "content-type: application/grpc" --body AAAAAAA=`,
			measured: `http://a:5000/g -H 'content-type: application/grpc' -c 4 -t 1 -m 10 -d crank-h2load-body.bin --warm-up-time 5 -D 15`,
			build:    `printf '%s' 'AAAAAAA=' | base64 -d > crank-h2load-body.bin`},
		{name: "h2load", args: `-c 1 -d 3 -u http://a/ --bodyFile http://x/b`, fail: "--bodyFile"},
	}
	for _, c := range cases {
		args, err := proc.Split(c.args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := wrappers["Microsoft.Crank.Jobs."+map[string]string{"wrk": "Wrk", "bombardier": "Bombardier", "h2load": "H2Load"}[c.name]].translate(args)
		if c.fail != "" {
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("%s %q: error %v, want %q", c.name, c.args, err, c.fail)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.name, c.args, err)
			continue
		}
		if m, w := joinArgs(got.measured), joinArgs(got.warmup); m != c.measured || w != c.warmup || got.build != c.build {
			t.Errorf("%s %q:\n measured %s\n     want %s\n   warmup %s\n     want %s\n    build %s\n     want %s",
				c.name, c.args, m, c.measured, w, c.warmup, got.build, c.build)
		}
	}
	if _, ok := wrapperFor(`src\Microsoft.Crank.Jobs.Wrk\Microsoft.Crank.Jobs.Wrk.csproj`); !ok {
		t.Error("a Windows-style project path names the wrk wrapper")
	}
	if _, ok := wrapperFor("src/Benchmarks/Benchmarks.csproj"); ok {
		t.Error("a .NET application is not a wrapper")
	}
}

// TestH2loadGRPCNeedsPathAndBody: a gRPC load through crank's h2load wrapper with no method path
// or no body is refused before anything starts, naming the variables that give them; each is
// named only when missing, and a load that is not gRPC is not concerned.
func TestH2loadGRPCNeedsPathAndBody(t *testing.T) {
	grpc := []string{"--header", "content-type: application/grpc", "--header", "TE: trailers", "-d", "5"}
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{append([]string{"-u", "http://h:5000"}, grpc...), "--variable path=/grpc.testing.BenchmarkService/UnaryCall (the method aspnet/Benchmarks' pipeline calls) --variable body=AAAAAAcKBVdvcmxk", ""},
		{append([]string{"-u", "http://h:5000/", "-b", "AAAA"}, grpc...), "needs the method's path in the URL,", "--variable body"},
		{append([]string{"-u", "http://h:5000/grpc.testing.BenchmarkService/UnaryCall"}, grpc...), "needs a request body,", "--variable path"},
		{append([]string{"-u", "http://h:5000/grpc.testing.BenchmarkService/UnaryCall", "-b", "AAAA"}, grpc...), "", ""},
		{[]string{"-u", "http://h:5000", "-d", "5"}, "", ""},
	} {
		_, err := h2loadArgs(c.args)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: err = %v, want %q", c.args, err, c.want)
		case c.not != "" && strings.Contains(err.Error(), c.not):
			t.Errorf("%q: err = %v names %q, which is given", c.args, err, c.not)
		}
	}
}
