package agent

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/api"
)

// dockerRuntime runs a job as a Docker container, through the engine's API: the image is built
// from the job's Dockerfile (or loaded, or pulled) and kept in a bounded cache, the container runs
// on the host's network as crank's agent does, its output is the job's output, and it is removed
// (with its anonymous volumes) when the job ends.
type dockerRuntime struct {
	a *Agent

	mu  sync.Mutex
	cli *client.Client // nil until an engine answered
}

// pingTimeout bounds the engine check at submission.
const pingTimeout = 5 * time.Second

// engine connects to the Docker engine (DOCKER_HOST or the local socket) and negotiates the API
// version; it fails with why no engine can be used.
func (r *dockerRuntime) engine(ctx context.Context) (*client.Client, error) {
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
func (r *dockerRuntime) client() (*client.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cli != nil {
		return r.cli, nil
	}
	opts := []client.Opt{client.FromEnv} // the API version is negotiated by default
	if h := r.a.opts.DockerHost; h != "" {
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
func (r *dockerRuntime) engineTimeout() time.Duration {
	if t := r.a.opts.EngineTimeout; t > 0 {
		return t
	}
	return defaultEngineTimeout
}

// describe is the engine's version for /info, or why there is none.
func (r *dockerRuntime) describe(ctx context.Context) string {
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

// check refuses what a Docker job cannot do here, and a job an agent with no engine cannot run.
func (r *dockerRuntime) check(spec api.Job) []string {
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
	} else if err := ra.hostAccess(r.a.opts.AllowPrivilegedDocker); err != nil {
		problems = append(problems, err.Error())
	}
	if _, err := r.engine(context.Background()); err != nil {
		problems = append(problems, "this job needs Docker: "+err.Error())
	}
	return problems
}

// imageName is the image a job runs, named as crank names it: dockerPull as given, dockerLoad's
// dockerImageName as given, else benchmarks_<dockerImageName or the Dockerfile's base name>,
// lower-cased.
func imageName(src *api.Source) string {
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

// removeLeftovers removes the containers an agent killed on the same Dir left behind (they carry
// its Dir as a label). An agent with no engine has none; nothing is waited for then.
func (r *dockerRuntime) removeLeftovers() {
	if os.Getenv("DOCKER_HOST") == "" {
		if _, err := os.Stat("/var/run/docker.sock"); err != nil {
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), leftoverTimeout)
	defer cancel()
	cli, err := r.engine(ctx)
	if err != nil {
		return
	}
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", labelDir+"="+r.a.opts.Dir)})
	if err != nil {
		return
	}
	for _, c := range list.Items {
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			r.a.log.Warn("leftover container not removed", "container", c.Names, "err", err)
			continue
		}
		r.a.log.Info("removed a container left by an earlier agent", "container", c.Names)
	}
}
