package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
)

// crank's load jobs (wrk.yml, bombardier.yml, h2load.yml) run .NET wrappers built from crank's
// repository (source.project Microsoft.Crank.Jobs.Wrk...). Each wrapper reads a few options
// itself (warm-up, duration) and runs the real tool twice: a warm-up run, then the measured run.
// Here the tool runs natively: the wrapper's arguments become the tool's measured and warm-up
// arguments, and the tool's parser reads the output.

// wrapper turns a crank wrapper's arguments into the tool's.
type wrapper struct {
	executable, parser string
	translate          func(args []string) (translated, error)
}

// translated is a wrapper's command line as the tool's: the measured run's arguments, the
// warm-up run's (none: no warm-up run) and a build step writing files the wrapper made itself.
type translated struct {
	measured, warmup []string
	build            string
}

// wrappers by the project path's folder in crank's repository.
var wrappers = map[string]wrapper{
	"Microsoft.Crank.Jobs.Wrk":        {"wrk", "wrk", wrkArgs},
	"Microsoft.Crank.Jobs.Bombardier": {"bombardier", "bombardier", bombardierArgs},
	"Microsoft.Crank.Jobs.H2Load":     {"h2load", "h2load", h2loadArgs},
}

// wrapperFor finds the wrapper a crank source.project names ("src/Microsoft.Crank.Jobs.Wrk/x.csproj").
func wrapperFor(project string) (wrapper, bool) {
	for _, part := range strings.Split(strings.ReplaceAll(project, "\\", "/"), "/") {
		if w, ok := wrappers[part]; ok {
			return w, true
		}
	}
	return wrapper{}, false
}

// applyProject runs a crank wrapper natively, or makes the job a .NET build of the project.
func (d *decoder) applyProject(j *api.Job) {
	w, ok := wrapperFor(d.project)
	if !ok {
		d.dotnetProject(j, d.project)
		return
	}
	args, err := proc.Split(j.Arguments)
	var t translated
	if err == nil {
		t, err = w.translate(args)
	}
	if err != nil {
		d.fail(d.projectPos, "arguments", "crank's %s wrapper: %v", w.executable, err)
		return
	}
	j.Arguments, j.WarmupArguments = joinArgs(t.measured), joinArgs(t.warmup)
	if t.build != "" {
		j.BuildCommand = strings.TrimPrefix(j.BuildCommand+" && "+t.build, " && ")
	}
	// The wrapper's banner ("Bombardier Client") was its readyStateText; the tool prints none.
	j.Source, j.Executable, j.Parser, j.ReadyStateText = nil, w.executable, w.parser, ""
}

// takeOption removes every "name value" (any of names, matched ignoring case) from args and
// returns the last value.
func takeOption(args []string, names ...string) ([]string, string, bool) {
	var out []string
	value, found := "", false
	for i := 0; i < len(args); i++ {
		matched := false
		for _, n := range names {
			if strings.EqualFold(args[i], n) && i+1 < len(args) {
				matched = true
			}
		}
		if matched {
			value, found = args[i+1], true
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out, value, found
}

// wrkScript is where a wrk script given as a URL is downloaded in the job folder.
const wrkScript = "crank-wrk-script.lua"

// wrkArgs: -d DURATION and -w WARMUP are the wrapper's; the rest goes to wrk as written. A
// warm-up of 0 or 0s is skipped, as the wrapper does. A script (-s) given as an http(s) URL is
// downloaded by the build step (curl on the agent), as the wrapper downloads it.
func wrkArgs(args []string) (translated, error) {
	rest, duration, ok := takeOption(args, "-d")
	if !ok {
		return translated{}, fmt.Errorf("no -d DURATION in the arguments")
	}
	rest, warm, _ := takeOption(rest, "-w")
	var t translated
	for i := 0; i+1 < len(rest); i++ { // the wrapper downloads a script given as a URL; so does the build step
		if (rest[i] == "-s" || rest[i] == "--script") && isURL(rest[i+1]) {
			t.build = "curl -fsSL --max-time 60 -o " + wrkScript + " -- '" + strings.ReplaceAll(rest[i+1], "'", `'\''`) + "'"
			rest[i+1] = wrkScript
		}
	}
	t.measured = append([]string{"-d", duration}, rest...)
	if warm != "" && warm != "0" && warm != "0s" {
		t.warmup = append([]string{"-d", warm}, rest...)
	}
	return t, nil
}

// bombardierArgs: -w WARMUP and -d DURATION are seconds, -n REQUESTS (0: none) replaces the
// duration, -o FORMAT (json by default) is the output format; the result is printed alone.
func bombardierArgs(args []string) (translated, error) {
	rest, warm, _ := takeOption(args, "-w")
	rest, duration, _ := takeOption(rest, "-d")
	rest, requests, _ := takeOption(rest, "-n")
	rest, format, _ := takeOption(rest, "-o")
	if format == "" {
		format = "json"
	}
	if format != "json" {
		return translated{}, fmt.Errorf("-o %s: the bombardier parser reads json", format)
	}
	base := append(rest, "--print", "r", "--format", format)
	d, n, w := atoi(duration), atoi(requests), atoi(warm)
	if d == 0 && n == 0 {
		return translated{}, fmt.Errorf("no -d DURATION or -n REQUESTS (whole numbers) in the arguments")
	}
	t := translated{measured: append([]string{"-d", strconv.Itoa(d) + "s"}, base...)}
	if n > 0 {
		t.measured = append([]string{"-n", strconv.Itoa(n)}, base...)
	}
	if w > 0 {
		t.warmup = append([]string{"-d", strconv.Itoa(w) + "s"}, base...)
	}
	return t, nil
}

// h2loadBody is the file the h2load wrapper's base64 body (-b) is written to in the job folder.
const h2loadBody = "crank-h2load-body.bin"

// h2loadArgs: the wrapper's own options (-u URL, -c, -t, -m, -n, -T, -w, -d seconds, -p
// protocol, --header, -b base64 body) become h2load's (URL, -c, -t, -m, -n or -D, -T,
// --warm-up-time, --h1 for http/1.1, -H, -d FILE: the body decoded into a file by the build step).
// --bodyFile (a URL to download) is refused.
func h2loadArgs(args []string) (translated, error) {
	opts := map[string]string{}
	var headers []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || i+1 >= len(args) {
			return translated{}, fmt.Errorf("unexpected argument %q", a)
		}
		v := args[i+1]
		i++
		switch a {
		case "--header":
			headers = append(headers, "-H", v)
		case "-u", "--url", "-c", "--connections", "-t", "--threads", "-m", "--streams", "-n", "--requests",
			"-T", "--timeout", "-w", "--warmup", "-d", "--duration", "-p", "--protocol":
			opts[strings.TrimLeft(a, "-")[:1]] = v
		case "-b", "--body":
			opts["b"] = v
		case "--bodyFile":
			return translated{}, fmt.Errorf("%s: a body file to download is not supported; give the body as -b BASE64 (the body variable)", a)
		default:
			return translated{}, fmt.Errorf("unknown option %q", a)
		}
	}
	if opts["u"] == "" {
		return translated{}, fmt.Errorf("no -u URL in the arguments")
	}
	if err := grpcRequestComplete(opts["u"], opts["b"], headers); err != nil {
		return translated{}, err
	}
	var t translated
	if b := opts["b"]; b != "" {
		if strings.Trim(b, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != "" {
			return translated{}, fmt.Errorf("-b: want the body as base64")
		}
		t.build = "printf '%s' '" + b + "' | base64 -d > " + h2loadBody
	}
	out := []string{opts["u"]}
	out = append(out, headers...)
	for _, o := range []string{"c", "t", "m", "T"} {
		if v := opts[o]; v != "" && v != "0" {
			out = append(out, "-"+o, v)
		}
	}
	switch p := strings.ToLower(opts["p"]); p {
	case "", "h2c", "h2":
	case "http/1.1", "http1", "h1":
		out = append(out, "--h1")
	default:
		return translated{}, fmt.Errorf("-p %s: want h2c, h2 or http/1.1", p)
	}
	if t.build != "" {
		out = append(out, "-d", h2loadBody)
	}
	if w := atoi(opts["w"]); w > 0 {
		out = append(out, "--warm-up-time", strconv.Itoa(w))
	}
	switch n, d := atoi(opts["n"]), atoi(opts["d"]); {
	case n > 0:
		t.measured = append(out, "-n", strconv.Itoa(n))
	case d > 0:
		t.measured = append(out, "-D", strconv.Itoa(d))
	default:
		return translated{}, fmt.Errorf("no -d DURATION or -n REQUESTS in the arguments")
	}
	return t, nil
}

// grpcRequestComplete refuses a gRPC load (a content-type: application/grpc header) with no method
// path in its URL or no body: a gRPC server refuses every such request (a bare GET is answered
// 415), so the run would measure nothing but errors. It names the variables of crank's h2load.yml
// that give them, with the values aspnet/Benchmarks' pipeline passes.
func grpcRequestComplete(rawURL, body string, headers []string) error {
	grpc := false
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ":")
		grpc = grpc || strings.EqualFold(strings.TrimSpace(name), "content-type") &&
			strings.HasPrefix(strings.ToLower(strings.TrimSpace(value)), "application/grpc")
	}
	if !grpc {
		return nil
	}
	var missing, give []string
	if u, err := url.Parse(rawURL); err == nil && (u.Path == "" || u.Path == "/") {
		missing, give = append(missing, "the method's path in the URL"), append(give, "--variable path=/grpc.testing.BenchmarkService/UnaryCall (the method aspnet/Benchmarks' pipeline calls)")
	}
	if body == "" {
		missing, give = append(missing, "a request body"), append(give, "--variable body=AAAAAAcKBVdvcmxk (its request: a gRPC message, in base64)")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("a gRPC request (content-type: application/grpc) needs %s, or the server refuses every request "+
		"(a gRPC server answers 415): give %s", strings.Join(missing, " and "), strings.Join(give, " "))
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(s), "s"))
	return n
}

// joinArgs quotes each argument for proc.Split: plain words as they are, others in single quotes.
func joinArgs(args []string) string {
	if len(args) == 0 {
		return ""
	}
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
