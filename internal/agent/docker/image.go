package docker

import (
	"archive/tar"
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/agent/buildcache"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
)

// Labels the agent puts on what it makes in the engine.
const (
	labelImage = "crankshaft.image" // value: the build key
	labelJob   = "crankshaft.job"
	labelDir   = "crankshaft.agent-dir"
)

// Prepare gets the job's image: reused from the image cache when the same source, Dockerfile,
// context and build arguments were built before, else built (or loaded, or pulled).
func (r *Runtime) Prepare(ctx context.Context, j *runtime.Job) error {
	identity := j.Identity
	cli, err := r.engine(ctx)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	src := j.Spec.Source
	switch {
	case src.DockerPull != "":
		j.Program = ImageName(src)
		return r.pull(ctx, cli, j)
	case src.DockerLoad != "":
		return r.load(ctx, cli, j)
	}
	key := ""
	if identity != "" {
		key = cacheKey(append([]string{identity, src.DockerFile, src.DockerContextDirectory}, j.Spec.BuildArguments...)...)
	}
	name := ImageName(src)
	j.Program = name + ":latest"
	if key != "" {
		j.Program = name + ":k" + key
		if r.reused(ctx, cli, j, key, name+":latest") {
			return nil
		}
	}
	return r.build(ctx, cli, j, name, key)
}

// cacheKey is the key of an image in the cache: a digest of what made it, each part
// length-prefixed (buildcache.Digest).
func cacheKey(parts ...string) string {
	return buildcache.Digest(parts...)[:16]
}

// reused reports whether the image j.Program is the one key's build or load made (its label says
// so), not an image another job put under the tag, and if so takes it: tagged again as latest
// (or as itself), which marks it used (LastTagTime) for the cache's pruning.
func (r *Runtime) reused(ctx context.Context, cli *client.Client, j *runtime.Job, key, latest string) bool {
	in, err := cli.ImageInspect(ctx, j.Program)
	if err != nil || in.Config == nil || in.Config.Labels[labelImage] != key {
		if err == nil {
			j.Log.Warn("cached image not reused: its label is not its key", "image", j.Program, "key", key)
		}
		return false
	}
	_, _ = cli.ImageTag(ctx, client.ImageTagOptions{Source: j.Program, Target: cmp.Or(latest, j.Program)})
	j.Out.WriteString("image reused from the cache: " + j.Program + "\n")
	j.Log.Info("image reused", "image", j.Program)
	j.SetBuild(0, true)
	return true
}

// build runs docker build (the classic builder: no BuildKit is assumed) with the job's context
// and Dockerfile, and tags the image name:latest and name:k<key>. Intermediate containers are
// removed whatever the outcome.
func (r *Runtime) build(ctx context.Context, cli *client.Client, j *runtime.Job, name, key string) error {
	src := j.Spec.Source
	from := j.Out.Len()
	fail := func(format string, args ...any) error {
		return fmt.Errorf("job %s: docker build of %s: %s; last output:\n%s", j.ID, src.DockerFile,
			fmt.Sprintf(format, args...), j.Out.Tail(from, runtime.TailLines))
	}
	ctxDir := src.DockerContextDirectory
	if ctxDir == "" {
		ctxDir = path.Dir(filepath.ToSlash(src.DockerFile))
	}
	root, err := os.OpenRoot(j.Dir)
	if err != nil {
		return fail("%v", err)
	}
	defer root.Close()
	if fi, err := root.Stat(src.DockerFile); err != nil || !fi.Mode().IsRegular() {
		return fail("dockerFile %q is not a file in the job's source", src.DockerFile)
	}
	if fi, err := root.Lstat(strings.TrimSuffix(ctxDir, "/")); err != nil || !fi.IsDir() {
		return fail("dockerContextDirectory %q is not a folder in the job's source", ctxDir)
	}
	dockerfile, err := filepath.Rel(ctxDir, src.DockerFile)
	if err != nil || !filepath.IsLocal(dockerfile) {
		dockerfile = ".crankshaft.Dockerfile" // outside the context: sent along under this name
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeContext(pw, root, ctxDir, src.DockerFile, dockerfile))
	}()
	defer pr.Close()
	args := map[string]*string{}
	for _, a := range j.Spec.BuildArguments {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			args[k] = nil // docker build --build-arg NAME takes it from the environment: none here
			continue
		}
		args[k] = &v
	}
	tags := []string{name + ":latest"}
	if key != "" {
		tags = append(tags, name+":k"+key)
	}
	j.Out.WriteString(fmt.Sprintf("$ docker build -t %s -f %s %s (%d build arguments)\n", strings.Join(tags, " -t "), src.DockerFile, ctxDir, len(args)))
	start := time.Now()
	res, err := cli.ImageBuild(ctx, pr, client.ImageBuildOptions{Tags: tags, Dockerfile: dockerfile, BuildArgs: args,
		Remove: true, ForceRemove: true, Labels: map[string]string{labelImage: key, labelDir: r.opts.Dir}})
	if err != nil {
		return fail("%v", err)
	}
	defer res.Body.Close()
	if err := readMessages(res.Body, j.Out); err != nil {
		if ctx.Err() != nil {
			return runtime.ErrStopping
		}
		return fail("%v", err)
	}
	j.SetBuild(float64(time.Since(start).Microseconds())/1000, false)
	r.prune(context.WithoutCancel(ctx), j.Program)
	return nil
}

// writeContext writes the build context (the folder ctxDir of the job folder) as a tar stream;
// a Dockerfile outside it is added as name. Links are stored as links, never followed.
func writeContext(w io.Writer, root *os.Root, ctxDir, dockerFile, name string) error {
	tw := tar.NewWriter(w)
	dir := path.Clean(filepath.ToSlash(ctxDir))
	err := fs.WalkDir(root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		rel := strings.TrimPrefix(p, dir+"/")
		if dir == "." {
			rel = p
		}
		return addFile(tw, root, p, rel)
	})
	if err != nil {
		return fmt.Errorf("build context %s: %w", ctxDir, err)
	}
	if name == ".crankshaft.Dockerfile" {
		if err := addFile(tw, root, path.Clean(filepath.ToSlash(dockerFile)), name); err != nil {
			return err
		}
	}
	return tw.Close()
}

func addFile(tw *tar.Writer, root *os.Root, p, name string) error {
	fi, err := root.Lstat(p)
	if err != nil {
		return err
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		if link, err = root.Readlink(p); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return err
	}
	hdr.Name = name
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	f, err := root.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}

// localPath reports whether p is a relative path that stays inside the job folder.
func localPath(p string) bool {
	return filepath.IsLocal(filepath.FromSlash(strings.TrimSuffix(p, "/")))
}
