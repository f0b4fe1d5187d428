// Package e2e runs the built binaries the way a user does: crank with the embedded agent, crank
// against agents started by hand, and the failure cases of the foundation.
package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// bins is the folder holding crank, crank-agent, bombardier and ghz, built once by TestMain.
type env struct {
	root string // module root
	bins string
}

func setup() (env, func(), error) {
	root, err := filepath.Abs("../..")
	if err != nil {
		return env{}, nil, err
	}
	dir, err := os.MkdirTemp("", "crank-e2e-bin-")
	if err != nil {
		return env{}, nil, err
	}
	cmd := exec.Command("go", "build", "-o", dir+"/", "./cmd/crank", "./cmd/crank-agent", "github.com/codesenberg/bombardier",
		"github.com/bojand/ghz/cmd/ghz")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return env{}, nil, fmt.Errorf("building binaries: %v\n%s", err, out)
	}
	return env{root: root, bins: dir}, func() { os.RemoveAll(dir) }, nil
}

var testEnv env // set once by TestMain before any test runs, read-only afterwards

func TestMain(m *testing.M) {
	e, cleanup, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testEnv = e
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// freePorts returns n distinct loopback TCP ports that were free a moment ago (held open together,
// so two calls in one test cannot return the same port twice).
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	return testutil.FreePorts(t, n)
}

// appPorts gives the app a free port and a free metrics port (its default is port + 1, which
// another test's app may hold).
func appPorts(t *testing.T) (port string, vars []string) {
	t.Helper()
	p := freePorts(t, 2)
	port = strconv.Itoa(p[0])
	return port, []string{"--variable", "serverPort=" + port, "--variable", "metricsPort=" + strconv.Itoa(p[1])}
}

// freePort returns a loopback TCP port that was free a moment ago (testutil.FreePorts).
func freePort(t *testing.T) int {
	t.Helper()
	return testutil.FreePorts(t, 1)[0]
}

type runResult struct {
	code   int
	stdout string
	stderr string
}

// crank runs bin/crank from the module root with a deadline.
func crank(t *testing.T, timeout time.Duration, args ...string) runResult {
	t.Helper()
	return crankEnv(t, timeout, nil, args...)
}

// result is the part of crank's JSON the tests read.
type result struct {
	ReturnCode int       `json:"returnCode"`
	Failures   []string  `json:"failures"`
	StartTime  time.Time `json:"startTime"`
	JobResults struct {
		Jobs map[string]struct {
			Results      map[string]float64 `json:"results"`
			Measurements [][]struct {
				Name   string  `json:"name"`
				Value  float64 `json:"value"`
				Warmup bool    `json:"warmup"`
			} `json:"measurements"`
			Environment map[string]any       `json:"environment"`
			Iterations  []map[string]float64 `json:"iterations"`
		} `json:"jobs"`
	} `json:"jobResults"`
}

func readResult(t *testing.T, path string) result {
	t.Helper()
	return readJSON[result](t, path)
}

// readJSON reads the JSON file at path (crank's output) into a T, the part of it a test reads.
func readJSON[T any](t *testing.T, path string) T {
	t.Helper()
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func mustContain(t *testing.T, what, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%s does not contain %q:\n%s", what, p, s)
		}
	}
}
