package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/config"
)

// ownAppsFile is where Crankshaft's own apps are defined as crank jobs, relative to a checkout.
const ownAppsFile = "scenarios/jobs/apps.yml"

// withOwnApps is one option to our own apps: a `--<service>.job NAME` naming a job that none of
// the files given defines, while Crankshaft's scenarios/jobs/apps.yml does (plaintext, json,
// fortunes, grpc), loads that file too and says so. So aspnet/Benchmarks' json scenario runs on
// our json app with `--application.job json` alone. The file is looked for in the current folder,
// then beside the crank executable (bin/crank of a checkout). Anything else is left as it is, for
// the resolver's "unknown job" error.
func withOwnApps(ctx context.Context, stderr io.Writer, cfg *config.Config, src Source) (*config.Config, error) {
	var missing []string
	for _, o := range src.Overrides {
		_, path, _ := strings.Cut(o[0], ".")
		if strings.EqualFold(path, "job") && o[1] != "" && !slices.Contains(cfg.Jobs(), o[1]) {
			missing = append(missing, o[1])
		}
	}
	if len(missing) == 0 {
		return cfg, nil
	}
	file := findOwnApps()
	if file == "" {
		return cfg, nil
	}
	// Ours first, so that every file given keeps its own definitions over them: only the jobs
	// those files lack come from ours.
	withApps, err := config.Load(ctx, append([]string{file}, src.Configs...), src.LoadOptions())
	if err != nil {
		return nil, fmt.Errorf("our own apps (%s): %w", file, err)
	}
	var found []string
	for _, name := range missing {
		if slices.Contains(withApps.Jobs(), name) {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return cfg, nil
	}
	fmt.Fprintf(stderr, "crank: note: job %s is not in the files given: taken from Crankshaft's own apps (%s)\n",
		strings.Join(found, ", "), file)
	return withApps, nil
}

// findOwnApps is the path of scenarios/jobs/apps.yml in the current folder or in the checkout
// the crank executable was built in, "" when neither has it.
func findOwnApps() string {
	candidates := []string{ownAppsFile}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", ownAppsFile))
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			if abs, err := filepath.Abs(c); err == nil {
				return abs
			}
			return c
		}
	}
	return ""
}
