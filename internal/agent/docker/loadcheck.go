package docker

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
)

// cacheTag is the tag of an image this agent built, keyed by its build (name:k<key>).
var cacheTag = regexp.MustCompile(`:k[0-9a-f]{16}$`)

// checkLoadTags reads the image tarball a job asks docker load to load (plain or gzipped, as docker
// save writes it) and refuses it unless every tag it would set is of the job's own image name and
// none is a cache tag: a tarball naming another job's image would replace that image under
// its name, and the other job would run it (issue 25, 2). docker load extracts the whole tarball
// and then reads manifest.json (and, in newer engines, index.json), so every entry is read: a
// second manifest.json under any spelling (./manifest.json, a/../manifest.json), one that is not a
// plain file (a link to another entry), or an index.json naming an image by annotation is checked
// or refused too. It returns the tags the tarball sets.
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
	repo := strings.ToLower(strings.SplitN(image, ":", 2)[0])
	check := func(tag string) error {
		name, _, _ := strings.Cut(tag, ":")
		name = strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(name), "docker.io/"), "library/") // how containerd names it
		if name != repo || cacheTag.MatchString(tag) {
			return fmt.Errorf("dockerLoad: the tarball tags %q, which is not this job's image %q: refused (it would replace another image under its name)", tag, repo)
		}
		return nil
	}
	tr := tar.NewReader(in)
	var tags []string
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dockerLoad: not a tarball docker save wrote (plain or gzipped): %w", err)
		}
		name := path.Clean("/" + h.Name)[1:]
		if name != "manifest.json" && name != "index.json" {
			continue
		}
		if seen[name] || h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("dockerLoad: the tarball holds %s twice or not as a plain file (entry %q): refused (docker load would read another than the one checked)", name, h.Name)
		}
		seen[name] = true
		found, err := loadTags(name, io.LimitReader(tr, 1<<20))
		if err != nil {
			return nil, err
		}
		for _, tag := range found {
			if err := check(tag); err != nil {
				return nil, err
			}
		}
		if name == "manifest.json" {
			tags = append(tags, found...)
		}
	}
	if !seen["manifest.json"] {
		return nil, errors.New("dockerLoad: no manifest.json: give a tarball docker save wrote (plain or gzipped)")
	}
	return tags, nil
}

// loadTags are the image names a manifest.json (RepoTags) or an OCI index.json (the image name
// annotations of its manifests) sets.
func loadTags(name string, r io.Reader) ([]string, error) {
	var tags []string
	if name == "manifest.json" {
		var manifest []struct{ RepoTags []string }
		if err := json.NewDecoder(r).Decode(&manifest); err != nil {
			return nil, fmt.Errorf("dockerLoad: manifest.json: %w", err)
		}
		for _, m := range manifest {
			tags = append(tags, m.RepoTags...)
		}
		return tags, nil
	}
	var index struct {
		Manifests []struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.NewDecoder(r).Decode(&index); err != nil {
		return nil, fmt.Errorf("dockerLoad: index.json: %w", err)
	}
	for _, m := range index.Manifests {
		for _, k := range []string{"io.containerd.image.name", "org.opencontainers.image.ref.name"} {
			if v := m.Annotations[k]; v != "" && (k != "org.opencontainers.image.ref.name" || strings.ContainsAny(v, "/:")) {
				tags = append(tags, v) // a bare ref.name ("latest") is a tag of the name above it
			}
		}
	}
	return tags, nil
}
