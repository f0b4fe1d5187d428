package main

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// The CPUs the two sides are pinned to.
const (
	cpuServer = 0
	cpuClient = 1
)

// env is what every section uses: the configuration, the tools found, the processes started.
type env struct {
	cfg   config
	log   *slog.Logger
	procs *procs
	tmp   string
	tools tools
	// run is the bench run being measured (1-based; comparisons), stamped on its samples.
	run int
	// pooled is each comparison's samples of the runs done so far, by its name (runRounds): the
	// rounds a row's figure pools, from which a run judges whether a row needs more.
	pooled map[string][]sample
}

// tools holds the paths of the programs the bench runs; an empty path is a missing tool, and
// missing says why.
type tools struct {
	taskset, nginx, wrk, lua string
	crank, agent, bombardier string
	h2load, ghz              string
	plaintext, json, grpc    string
	missing                  map[string]string
	versions                 []string
}

// pinned prefixes argv with taskset for cpu (as is when taskset is missing).
func (e *env) pinned(cpu int, argv ...string) []string {
	if e.tools.taskset == "" {
		return argv
	}
	return append([]string{e.tools.taskset, "-c", strconv.Itoa(cpu)}, argv...)
}

// show is a command line as the report prints it: the temporary folder as $TMP, programs by name.
func (e *env) show(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, e.tmp, "$TMP")
		if i == 0 || strings.HasPrefix(a, "/usr/") {
			a = filepath.Base(a)
		}
		if wd, err := os.Getwd(); err == nil {
			a = strings.ReplaceAll(a, wd+"/", "")
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// findTools finds the installed tools and builds the rest: the apps always (into the temporary
// folder), crank, crank-agent and bombardier when `make build` did not leave them in bin/.
func (e *env) findTools(ctx context.Context) error {
	t := &e.tools
	t.missing = map[string]string{}
	look := func(name, prog string) string {
		if p := findProgram(prog); p != "" {
			return p
		}
		t.missing[name] = name + " not installed"
		return ""
	}
	t.taskset = look("taskset", "taskset")
	t.nginx = look("nginx", e.cfg.nginx)
	t.wrk = look("wrk", e.cfg.wrk)
	t.h2load = look("h2load", "h2load")
	abs, err := filepath.Abs(filepath.Join(e.cfg.repo, "internal/parsers/wrk/scripts/pipeline.lua"))
	if err != nil {
		return fmt.Errorf("wrk's pipeline script: %w", err)
	}
	t.lua = abs
	binDir := filepath.Join(e.tmp, "bin")
	if err := e.goBuild(ctx, binDir, "./apps/plaintext", "./apps/json", "./apps/grpc"); err != nil {
		return err
	}
	t.plaintext, t.json, t.grpc = filepath.Join(binDir, "plaintext"), filepath.Join(binDir, "json"), filepath.Join(binDir, "grpc")
	for _, b := range []struct {
		path *string
		name string
		pkg  string
	}{{&t.crank, "crank", "./cmd/crank"}, {&t.agent, "crank-agent", "./cmd/crank-agent"},
		{&t.bombardier, "bombardier", "github.com/codesenberg/bombardier"},
		{&t.ghz, "ghz", "github.com/bojand/ghz/cmd/ghz"}} {
		if p, err := filepath.Abs(filepath.Join(e.cfg.bin, b.name)); err == nil && isFile(p) {
			*b.path = p
			continue
		}
		if err := e.goBuild(ctx, binDir, b.pkg); err != nil {
			return err
		}
		*b.path = filepath.Join(binDir, b.name)
	}
	t.versions = e.versions()
	return nil
}

// findProgram is prog's path: prog itself when it holds a slash, else found on PATH or in
// /usr/sbin (Debian's nginx, off a user's PATH); "" when there is none.
func findProgram(prog string) string {
	if strings.Contains(prog, "/") {
		if isFile(prog) {
			return prog
		}
		return ""
	}
	if p, err := exec.LookPath(prog); err == nil {
		return p
	}
	if p := filepath.Join("/usr/sbin", prog); isFile(p) {
		return p
	}
	return ""
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// goBuild runs `go build -o dir/ pkgs...` in the repository.
func (e *env) goBuild(ctx context.Context, dir string, pkgs ...string) error {
	e.log.Info("building", "packages", pkgs)
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", dir + "/"}, pkgs...)...)
	cmd.Dir = e.cfg.repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w: %s", strings.Join(pkgs, " "), err, tail(out))
	}
	return nil
}

// versions describes the tools found, one line each.
func (e *env) versions() []string {
	out := []string{"Go " + strings.TrimPrefix(runtime.Version(), "go")}
	first := func(argv ...string) string {
		b, _ := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
		return string(line)
	}
	if e.tools.nginx != "" {
		out = append(out, strings.TrimPrefix(first(e.tools.nginx, "-v"), "nginx version: "))
	}
	if e.tools.wrk != "" {
		w, _, _ := strings.Cut(first(e.tools.wrk, "-v"), " Copyright")
		out = append(out, w)
	}
	if e.tools.h2load != "" {
		out = append(out, first(e.tools.h2load, "--version"))
	}
	for _, m := range []struct{ exe, name, module string }{
		{e.tools.bombardier, "bombardier", "github.com/codesenberg/bombardier"},
		{e.tools.ghz, "ghz", "github.com/bojand/ghz"},
	} {
		if bi, err := buildinfo.ReadFile(m.exe); err == nil {
			v := bi.Main.Version
			for _, d := range bi.Deps {
				if d.Path == m.module {
					v = d.Version
				}
			}
			out = append(out, m.name+" "+v)
		}
	}
	return out
}
