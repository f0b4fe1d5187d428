package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/moby/moby/api/types/jsonstream"
	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/agent/runtime"
)

// load gets a dockerLoad job's image, as a build's: under name:k<key> (key: the sources' identity
// and the tarball's path), reused when its label says it is that key's. Else the tarball is loaded
// (refused when it would tag another image, checkLoadTags), then labelled with the key and the
// agent's Dir by a build FROM it, which alone keeps a tag: the tarball's own tags are removed, so
// the loaded image is pruned with its labelled one, as built images are.
func (r *Runtime) load(ctx context.Context, cli *client.Client, j *runtime.Job) error {
	src := j.Spec.Source
	image := ImageName(src)
	repo, _, _ := strings.Cut(strings.ToLower(image), ":")
	key := cacheKey("dockerLoad", j.Identity, src.DockerLoad, image) // "dockerLoad" is no identity: never a build's key
	j.Program = repo + ":k" + key
	if j.Identity != "" && r.reused(ctx, cli, j, key, "") {
		return nil
	}
	from := j.Out.Len()
	root, err := os.OpenRoot(j.Dir)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	defer root.Close()
	f, err := root.Open(src.DockerLoad)
	if err != nil {
		return fmt.Errorf("job %s: dockerLoad: %w", j.ID, err)
	}
	defer f.Close()
	tags, err := checkLoadTags(f, image)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("job %s: dockerLoad: %w", j.ID, err)
	}
	j.Out.WriteString("$ docker load -i " + src.DockerLoad + "\n")
	start := time.Now()
	res, err := cli.ImageLoad(ctx, f)
	if err == nil {
		err = readMessages(res, j.Out)
		res.Close()
	}
	if err != nil {
		return fmt.Errorf("job %s: docker load %s: %v; last output:\n%s", j.ID, src.DockerLoad, err, j.Out.Tail(from, runtime.TailLines))
	}
	loaded, err := cli.ImageInspect(ctx, image)
	if err != nil {
		return fmt.Errorf("job %s: dockerLoad %s: no image %s once loaded (the tarball tags %v): %w", j.ID, src.DockerLoad, image, tags, err)
	}
	if err := r.label(ctx, cli, j, loaded.ID, key); err != nil {
		return fmt.Errorf("job %s: dockerLoad %s: labelling %s: %w", j.ID, src.DockerLoad, image, err)
	}
	for _, t := range tags { // the labelled image holds the loaded one
		if _, err := cli.ImageRemove(ctx, t, client.ImageRemoveOptions{}); err != nil {
			j.Log.Warn("loaded image's tag not removed", "tag", t, "err", err)
		}
	}
	j.SetBuild(float64(time.Since(start).Microseconds())/1000, false)
	r.prune(context.WithoutCancel(ctx), j.Program)
	return nil
}

// label makes the image j.Program: the image id with the cache's labels (key and the agent's Dir),
// built FROM it with nothing else.
func (r *Runtime) label(ctx context.Context, cli *client.Client, j *runtime.Job, id, key string) error {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	dockerfile := "FROM " + id + "\n"
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		return err
	}
	if _, err := tw.Write([]byte(dockerfile)); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	res, err := cli.ImageBuild(ctx, &b, client.ImageBuildOptions{Tags: []string{j.Program}, Remove: true, ForceRemove: true,
		Labels: map[string]string{labelImage: key, labelDir: r.opts.Dir}})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	return readMessages(res.Body, io.Discard)
}

// pull runs docker pull of dockerPull.
func (r *Runtime) pull(ctx context.Context, cli *client.Client, j *runtime.Job) error {
	from := j.Out.Len()
	j.Out.WriteString("$ docker pull " + j.Program + "\n")
	res, err := cli.ImagePull(ctx, j.Program, client.ImagePullOptions{})
	if err == nil {
		err = readMessages(res, j.Out)
		res.Close()
	}
	if err != nil {
		return fmt.Errorf("job %s: docker pull %s: %v; last output:\n%s", j.ID, j.Program, err, j.Out.Tail(from, runtime.TailLines))
	}
	return nil
}

// readMessages copies a Docker JSON message stream (build, load, pull) into out and returns the
// error the engine reported in it, if any.
func readMessages(r io.Reader, out io.Writer) error {
	dec := json.NewDecoder(r)
	for {
		var m jsonstream.Message
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch {
		case m.Error != nil:
			io.WriteString(out, m.Error.Message+"\n")
			return errors.New(m.Error.Message)
		case m.Stream != "":
			io.WriteString(out, m.Stream)
		case m.Status != "":
			io.WriteString(out, strings.TrimSpace(m.ID+" "+m.Status)+"\n")
		}
	}
}
