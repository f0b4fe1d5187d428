package docker

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// cacheTag is the tag of an image this agent built, keyed by its build (name:k<key>).
var cacheTag = regexp.MustCompile(`:k[0-9a-f]{16}$`)

// checkLoadTags reads the image tarball a job asks docker load to load (plain or gzipped, as docker
// save writes it) and refuses it unless every tag it would set is of the job's own image name and
// none is a cache tag: a tarball naming another job's image would replace that image under
// its name, and the other job would run it (issue 25, 2). It returns the tags the tarball sets.
func checkLoadTags(r io.Reader, image string) ([]string, error) {
	br := bufio.NewReader(r)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("dockerLoad: %w", err)
		}
		defer gz.Close()
		in = gz
	}
	tr := tar.NewReader(in)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("dockerLoad: no manifest.json: give a tarball docker save wrote (plain or gzipped)")
		}
		if err != nil {
			return nil, fmt.Errorf("dockerLoad: not a tarball docker save wrote (plain or gzipped): %w", err)
		}
		if h.Name != "manifest.json" {
			continue
		}
		var manifest []struct{ RepoTags []string }
		if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&manifest); err != nil {
			return nil, fmt.Errorf("dockerLoad: manifest.json: %w", err)
		}
		repo := strings.ToLower(strings.SplitN(image, ":", 2)[0])
		var tags []string
		for _, m := range manifest {
			for _, tag := range m.RepoTags {
				name, _, _ := strings.Cut(tag, ":")
				if strings.ToLower(name) != repo || cacheTag.MatchString(tag) {
					return nil, fmt.Errorf("dockerLoad: the tarball tags %q, which is not this job's image %q: refused (it would replace another image under its name)", tag, repo)
				}
				tags = append(tags, tag)
			}
		}
		return tags, nil
	}
}
