package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ImportMapEnv is the environment variable that holds import mappings, separated by white space,
// each written as the flag's value (ImportMapFlag).
const ImportMapEnv = "CRANK_IMPORT_MAP"

// ImportMapFlag is the command-line flag that maps a URL prefix to a local folder.
const ImportMapFlag = "--import-map"

// ImportMapping reads the URLs under Prefix from the local folder Dir: Prefix + "a/b.yml" is
// Dir/a/b.yml. Users keep checkouts of the repositories crank's files import by URL
// (https://raw.githubusercontent.com/dotnet/crank/main/ is a checkout of dotnet/crank's main).
type ImportMapping struct {
	Prefix string // an http(s) URL ending with "/", its scheme and host in lower case
	Dir    string // an absolute folder
	From   string // where it was given, for messages: "--import-map" or "CRANK_IMPORT_MAP"
}

func (m ImportMapping) String() string { return m.From + " " + m.Prefix + "=" + m.Dir }

// ParseImportMapping reads PREFIX=FOLDER. The prefix is an http(s) URL without query or fragment
// (a "/" is added when it lacks one: only whole path segments match); the folder must exist.
func ParseImportMapping(s, from string) (ImportMapping, error) {
	prefix, dir, ok := strings.Cut(s, "=")
	if !ok || prefix == "" || dir == "" {
		return ImportMapping{}, fmt.Errorf("%s %q: want URL-PREFIX=FOLDER (https://raw.githubusercontent.com/dotnet/crank/main/=/src/crank)", from, s)
	}
	u, err := url.Parse(prefix)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ImportMapping{}, fmt.Errorf("%s %q: the prefix %q is not an http(s) URL", from, s, prefix)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return ImportMapping{}, fmt.Errorf("%s %q: the prefix %q may hold no query, fragment or user", from, s, prefix)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ImportMapping{}, fmt.Errorf("%s %q: folder %q: %w", from, s, dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return ImportMapping{}, fmt.Errorf("%s %q: folder %q: %w", from, s, dir, err)
	} else if !fi.IsDir() {
		return ImportMapping{}, fmt.Errorf("%s %q: %q is not a folder", from, s, dir)
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	p := u.String()
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return ImportMapping{Prefix: p, Dir: abs, From: from}, nil
}

// ParseImportMapEnv reads the environment variable's value: mappings separated by white space.
func ParseImportMapEnv(v string) ([]ImportMapping, error) {
	var out []ImportMapping
	var errs []error
	for _, f := range strings.Fields(v) {
		m, err := ParseImportMapping(f, ImportMapEnv)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

// mapped is where a URL is read from under the mappings: the mapping and the path inside its
// folder; ok is false when no mapping's prefix matches. Of several that match, the longest
// prefix wins, and of equal ones the last given. A URL with a query or fragment, or whose path
// leaves the folder, is an error.
func mapURL(maps []ImportMapping, raw string) (m ImportMapping, rel string, ok bool, err error) {
	u, perr := url.Parse(raw)
	if perr != nil {
		return m, "", false, nil // fetched as it is, and that says what is wrong
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	norm := u.String()
	for _, c := range maps {
		if strings.HasPrefix(norm, c.Prefix) && len(c.Prefix) >= len(m.Prefix) {
			m, ok = c, true
		}
	}
	if !ok {
		return m, "", false, nil
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return m, "", true, fmt.Errorf("%s: mapped by %s: a URL with a query or fragment names no file", raw, m)
	}
	rest, err := url.PathUnescape(norm[len(m.Prefix):])
	switch {
	case err != nil:
		return m, "", true, fmt.Errorf("%s: mapped by %s: %w", raw, m, err)
	case rest == "":
		return m, "", true, fmt.Errorf("%s: mapped by %s: names the folder itself, not a file", raw, m)
	case !filepath.IsLocal(rest):
		return m, "", true, fmt.Errorf("%s: mapped by %s: the path %q leaves the folder %s", raw, m, rest, m.Dir)
	}
	return m, rest, true, nil
}

// readMapped reads rel inside the mapping's folder, never through a link that leaves it.
func readMapped(m ImportMapping, rel, raw string) ([]byte, error) {
	f, err := os.OpenInRoot(m.Dir, rel)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: mapped by %s to %s: %w (is the checkout at the commit the URL names?)",
			raw, m, filepath.Join(m.Dir, rel), err)
	}
	defer f.Close()
	return readCapped(f, filepath.Join(m.Dir, rel))
}

// mapHint says how to read a URL that could not be fetched from a local checkout instead. For
// raw.githubusercontent.com/OWNER/REPO/BRANCH/..., the prefix is the repository's at that branch;
// for any other URL, its folder.
func mapHint(raw string, maps []ImportMapping) string {
	prefix, repo := raw[:strings.LastIndex(raw, "/")+1], "folder"
	if u, err := url.Parse(raw); err == nil && strings.EqualFold(u.Host, "raw.githubusercontent.com") {
		if parts := strings.SplitN(strings.TrimPrefix(u.EscapedPath(), "/"), "/", 4); len(parts) == 4 {
			prefix = u.Scheme + "://" + u.Host + "/" + strings.Join(parts[:3], "/") + "/"
			repo = parts[1]
		}
	}
	hint := fmt.Sprintf("to read it from a local checkout instead, map its prefix to that folder: %s %s=/path/to/%s (or %s)",
		ImportMapFlag, prefix, repo, ImportMapEnv)
	if len(maps) > 0 {
		var given []string
		for _, m := range maps {
			given = append(given, m.Prefix)
		}
		hint += "; no prefix mapped matches it (" + strings.Join(given, ", ") + ")"
	}
	return hint
}
