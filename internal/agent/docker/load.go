package docker

import (
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

// load runs docker load with the tarball dockerLoad of the job's source.
func (r *Runtime) load(ctx context.Context, cli *client.Client, j *runtime.Job) error {
	from := j.Out.Len()
	root, err := os.OpenRoot(j.Dir)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	defer root.Close()
	f, err := root.Open(j.Spec.Source.DockerLoad)
	if err != nil {
		return fmt.Errorf("job %s: dockerLoad: %w", j.ID, err)
	}
	defer f.Close()
	if err := checkLoadTags(f, j.Program); err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("job %s: dockerLoad: %w", j.ID, err)
	}
	j.Out.WriteString("$ docker load -i " + j.Spec.Source.DockerLoad + "\n")
	start := time.Now()
	res, err := cli.ImageLoad(ctx, f)
	if err == nil {
		err = readMessages(res, j.Out)
		res.Close()
	}
	if err != nil {
		return fmt.Errorf("job %s: docker load %s: %v; last output:\n%s", j.ID, j.Spec.Source.DockerLoad, err, j.Out.Tail(from, runtime.TailLines))
	}
	j.SetBuild(float64(time.Since(start).Microseconds())/1000, false)
	return nil
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
