package api

import (
	"fmt"
	"path"
	"strings"
	"unicode"
)

// NamedSource is one of a job's named sources (crank's sources:): a local folder the controller
// uploads, or a repository the agent clones, placed in DestinationFolder inside the job's folder.
// A job may have them beside its own Source, which fills the job folder itself.
type NamedSource struct {
	Name           string `json:"name"`
	LocalFolder    string `json:"localFolder,omitempty"`
	Repository     string `json:"repository,omitempty"`
	BranchOrCommit string `json:"branchOrCommit,omitempty"`
	// DestinationFolder is a slash path inside the job's folder (default: Name).
	DestinationFolder string `json:"destinationFolder,omitempty"`
	// Hash identifies an upload's content, as Source.Hash; the agent keys builds by its own digest.
	Hash string `json:"hash,omitempty"`
}

// Dest is where the source goes in the job's folder: DestinationFolder, or the source's name.
func (s NamedSource) Dest() string {
	if s.DestinationFolder != "" {
		return path.Clean(s.DestinationFolder)
	}
	return path.Clean(s.Name)
}

// CheckDestination accepts a slash path that names a folder strictly inside a job's folder: not
// empty, not the folder itself, not absolute, no "..", no back slashes, white space at its ends
// or control characters.
func CheckDestination(dest string) error {
	switch {
	case dest == "":
		return fmt.Errorf("empty")
	case len(dest) > 1024:
		return fmt.Errorf("longer than 1024 bytes")
	case strings.HasPrefix(dest, "/"):
		return fmt.Errorf("%q is an absolute path: want a folder inside the job's folder", dest)
	case strings.Contains(dest, `\`):
		return fmt.Errorf("%q holds a back slash: separate folders with /", dest)
	case strings.TrimSpace(dest) != dest:
		return fmt.Errorf("%q starts or ends with white space", dest)
	case strings.IndexFunc(dest, unicode.IsControl) >= 0:
		return fmt.Errorf("%q holds control characters", dest)
	}
	c := path.Clean(dest)
	switch {
	case c == ".":
		return fmt.Errorf("%q is the job's folder itself: the job's source: fills it", dest)
	case c == ".." || strings.HasPrefix(c, "../"):
		return fmt.Errorf("%q leaves the job's folder (..)", dest)
	}
	return nil
}

// Within reports whether the cleaned slash path a is b or inside b.
func Within(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/")
}

// CheckSources checks a job's named sources: names unique and not empty, each exactly one of a
// local folder or a repository, destinations inside the job's folder and none inside another.
func CheckSources(list []NamedSource) []string {
	var problems []string
	seen := map[string]bool{}
	for i, s := range list {
		key := "sources." + s.Name
		switch {
		case s.Name == "":
			problems = append(problems, fmt.Sprintf("sources[%d]: no name", i))
			continue
		case seen[s.Name]:
			problems = append(problems, key+": named twice")
			continue
		case strings.IndexFunc(s.Name, unicode.IsControl) >= 0:
			problems = append(problems, fmt.Sprintf("sources[%d]: the name %q holds control characters", i, s.Name))
			continue
		}
		seen[s.Name] = true
		if (s.LocalFolder == "") == (s.Repository == "") {
			problems = append(problems, key+": give exactly one of localFolder and repository")
		}
		d := s.DestinationFolder
		if d == "" {
			d = s.Name
		}
		if err := CheckDestination(d); err != nil {
			problems = append(problems, fmt.Sprintf("%s.destinationFolder: %v", key, err))
			continue
		}
		for _, o := range list[:i] {
			if o.Name == "" || CheckDestination(o.Dest()) != nil {
				continue
			}
			if Within(s.Dest(), o.Dest()) || Within(o.Dest(), s.Dest()) {
				problems = append(problems, fmt.Sprintf("%s.destinationFolder %q and sources.%s's %q overlap: give each source a folder of its own",
					key, s.Dest(), o.Name, o.Dest()))
			}
		}
	}
	return problems
}

// ParseBuildFile splits one of crank's buildFiles entries, "path[;folder]": path is a local file
// or glob ("dir/**/*.cs" searches below dir) or an http(s) URL; folder, when given, is a folder
// inside the job's folder (CheckDestination) that the files go to, else the job's folder itself.
func ParseBuildFile(entry string) (source, folder string, err error) {
	source, folder, _ = strings.Cut(entry, ";")
	source, folder = strings.TrimSpace(source), strings.TrimSpace(folder)
	if source == "" {
		return "", "", fmt.Errorf("%q names no file", entry)
	}
	if folder != "" {
		if err := CheckDestination(folder); err != nil {
			return "", "", fmt.Errorf("folder %v", err)
		}
		folder = path.Clean(folder)
	}
	return source, folder, nil
}
