package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath resolves a job's executable. A name holding "/" is absolute, or relative to dir and
// then must stay inside it (symbolic links included). A bare name is looked for in each of dirs
// (the agent's own folder: `make tools` puts the Go load tools there), then on PATH.
func LookPath(name, dir string, dirs ...string) (string, error) {
	if name == "" {
		return "", errors.New("executable: empty name")
	}
	if strings.Contains(name, "/") {
		return lookInside(name, dir)
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if isExecutable(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("executable %q: not found next to the agent (%s) nor on PATH%s", name, strings.Join(dirs, ", "), goTools[name])
	}
	return p, nil
}

// goTools are the load tools the Makefile builds, with how to get them.
var goTools = map[string]string{
	"bombardier": ": `make tools` builds bombardier and ghz into bin/, next to crank and crank-agent",
	"ghz":        ": `make tools` builds bombardier and ghz into bin/, next to crank and crank-agent",
}

func lookInside(name, dir string) (string, error) {
	p := name
	if !filepath.IsAbs(name) {
		p = filepath.Join(dir, name)
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", fmt.Errorf("executable %q: not found in the job folder", name)
		}
		root, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", fmt.Errorf("executable %q: job folder: %w", name, err)
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", fmt.Errorf("executable %q: leaves the job folder", name)
		}
	}
	if !isExecutable(p) {
		return "", fmt.Errorf("executable %q: not found or not executable", name)
	}
	return p, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
