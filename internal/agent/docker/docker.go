// Package docker is the job runtime that runs a job as a Docker container, through the engine's
// API: the image is built from the job's Dockerfile (or loaded, or pulled) and kept in a bounded
// cache, the container runs on the host's network as crank's agent does, its output is the job's
// output, and it is removed (with its anonymous volumes) when the job ends.
package docker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
)

// Options configure the Docker runtime.
type Options struct {
	// Dir is the agent's job root: the containers and images the runtime makes carry it as a
	// label, so that an agent on the same Dir finds what a killed one left, and prunes only its own.
	Dir string
	// Host is the engine's address (unix:///run/docker.sock, tcp://...); default: DOCKER_HOST,
	// else the local socket.
	Host string
	// EngineTimeout bounds each engine call made to stop or clean up (default 30 s).
	EngineTimeout time.Duration
	// AllowPrivileged lets jobs ask for the docker run options that give a container the host.
	AllowPrivileged bool
	// ImageCacheMaxBytes and CacheMaxAge bound the images kept (negative, zero: no bound).
	ImageCacheMaxBytes int64
	CacheMaxAge        time.Duration
	Logger             *slog.Logger
}

// Runtime runs jobs as Docker containers.
type Runtime struct {
	opts Options
	log  *slog.Logger

	mu  sync.Mutex
	cli *client.Client // nil until an engine answered
}

// New is a Docker runtime; it connects to the engine when a job first needs it.
func New(opts Options) *Runtime {
	return &Runtime{opts: opts, log: cmp.Or(opts.Logger, slog.Default())}
}

var _ runtime.Runtime = (*Runtime)(nil)

// pingTimeout bounds the engine check at submission.
const pingTimeout = 5 * time.Second

// engine connects to the Docker engine (DOCKER_HOST or the local socket) and negotiates the API
// version; it fails with why no engine can be used.
func (r *Runtime) engine(ctx context.Context) (*client.Client, error) {
	cli, err := r.client()
	if err != nil {
		return nil, err
	}
	// The ping runs without the lock: an engine slow to answer delays this caller only.
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if _, err := cli.Ping(pctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return nil, fmt.Errorf("no Docker engine answers at %s: %w", cli.DaemonHost(), err)
	}
	return cli, nil
}

// client is the engine's client, made once.
func (r *Runtime) client() (*client.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cli != nil {
		return r.cli, nil
	}
	opts := []client.Opt{client.FromEnv} // the API version is negotiated by default
	if h := r.opts.Host; h != "" {
		opts = append(opts, client.WithHost(h))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("no Docker engine: %w", err)
	}
	r.cli = cli
	return cli, nil
}

// engineTimeout bounds each engine call made to stop or clean up (Options.EngineTimeout).
func (r *Runtime) engineTimeout() time.Duration {
	if t := r.opts.EngineTimeout; t > 0 {
		return t
	}
	return defaultEngineTimeout
}

// Accepts a job that runs in a container: it names a Dockerfile, an image to load or to pull
// (api.Job.InContainer, crank's rule).
func (r *Runtime) Accepts(spec api.Job) bool { return spec.InContainer() }

// Program is "container IMAGE", the image named as ImageName names it.
func (r *Runtime) Program(spec api.Job) string { return "container " + ImageName(spec.Source) }

// Describe gives /info the engine's version, or why there is none.
func (r *Runtime) Describe(ctx context.Context, info *api.Info) {
	info.Docker = r.describe(ctx)
}

func (r *Runtime) describe(ctx context.Context) string {
	cli, err := r.engine(ctx)
	if err != nil {
		return "none: " + err.Error()
	}
	v, err := cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		return "none: " + err.Error()
	}
	return fmt.Sprintf("%s (API %s)", v.Version, cli.ClientVersion())
}

// Check refuses what a Docker job cannot do here, and a job an agent with no engine cannot run.
func (r *Runtime) Check(spec api.Job) []string {
	var problems []string
	src := spec.Source
	for key, set := range map[string]bool{"executable": spec.Executable != "", "buildCommand": spec.BuildCommand != "",
		"user": spec.User != "", "warmupArguments": spec.WarmupArguments != ""} {
		if set {
			problems = append(problems, key+" is for process jobs: a Docker job runs its image (dockerCommand replaces the image's command)")
		}
	}
	hasSource := src.LocalFolder != "" || src.Repository != "" || len(spec.Sources) > 0
	switch {
	case src.DockerPull != "":
	case src.DockerLoad != "" && src.DockerImageName == "":
		problems = append(problems, "source.dockerLoad needs source.dockerImageName: the image the tarball holds")
	case (src.DockerFile != "" || src.DockerLoad != "") && !hasSource:
		problems = append(problems, "source.dockerFile and source.dockerLoad need a source (source.localFolder, source.repository or sources)")
	case src.DockerFile == "" && src.DockerLoad == "":
		problems = append(problems, "source.dockerImageName alone names no image to run: add source.dockerFile, source.dockerLoad or source.dockerPull")
	}
	for _, p := range []string{src.DockerFile, src.DockerContextDirectory, src.DockerLoad} {
		if p != "" && !localPath(p) {
			problems = append(problems, fmt.Sprintf("%q is not a path inside the job's source", p))
		}
	}
	if ra, err := parseRunArgs(spec.Arguments); err != nil {
		problems = append(problems, err.Error())
	} else if err := ra.hostAccess(r.opts.AllowPrivileged); err != nil {
		problems = append(problems, err.Error())
	}
	if _, err := r.engine(context.Background()); err != nil {
		problems = append(problems, "this job needs Docker: "+err.Error())
	}
	return problems
}

// ImageName is the image a job runs, named as crank names it: dockerPull as given, dockerLoad's
// dockerImageName as given, else benchmarks_<dockerImageName or the Dockerfile's base name>,
// lower-cased.
func ImageName(src *api.Source) string {
	switch {
	case src.DockerPull != "":
		return strings.ToLower(src.DockerPull)
	case src.DockerLoad != "":
		return src.DockerImageName
	case src.DockerImageName != "":
		if strings.HasPrefix(src.DockerImageName, "benchmarks_") {
			return src.DockerImageName
		}
		return strings.ToLower("benchmarks_" + src.DockerImageName)
	}
	base := src.DockerFile[strings.LastIndexAny(src.DockerFile, `/\`)+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return strings.ToLower("benchmarks_" + base)
}

var notWord = regexp.MustCompile(`[^\w]`)

// containerName is crank's: the image name with every non-word character made "_", then the job id.
func containerName(image, id string) string {
	return notWord.ReplaceAllString(image, "_") + "-" + id
}

// leftoverTimeout bounds the search for containers an earlier agent left.
const leftoverTimeout = 10 * time.Second

// Cleanup removes the containers an agent killed on the same Dir left behind (they carry its Dir
// as a label), within leftoverTimeout. An agent with no engine has none: nothing is waited for
// then, and no engine is no error. The image cache is pruned as images are made (Prepare).
func (r *Runtime) Cleanup(ctx context.Context) error {
	if r.opts.Host == "" && os.Getenv("DOCKER_HOST") == "" {
		if _, err := os.Stat("/var/run/docker.sock"); err != nil {
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, leftoverTimeout)
	defer cancel()
	cli, err := r.engine(ctx)
	if err != nil {
		return nil
	}
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", labelDir+"="+r.opts.Dir)})
	if err != nil {
		return fmt.Errorf("docker: leftover containers: %w", err)
	}
	var errs []error
	for _, c := range list.Items {
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			r.log.Warn("leftover container not removed", "container", c.Names, "err", err)
			errs = append(errs, fmt.Errorf("docker: leftover container %s: %w", strings.Join(c.Names, ","), err))
			continue
		}
		r.log.Info("removed a container left by an earlier agent", "container", c.Names)
	}
	return errors.Join(errs...)
}
