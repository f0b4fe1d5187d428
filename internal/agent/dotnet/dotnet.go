// Package dotnet is the agent's side of crank's .NET jobs (source.project): it finds the .NET SDKs
// and runtimes installed (`dotnet --list-sdks`, `dotnet --list-runtimes`), chooses the SDK a job
// asks for among them (the agent installs nothing), and turns the job into the build command and
// command line crank's agent would run: `dotnet publish PROJECT -c Release -o published
// --framework TFM`, then `dotnet published/NAME.dll ARGS` (or the apphost when self-contained).
package dotnet

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// listTimeout bounds each `dotnet --list-*` call.
const listTimeout = 10 * time.Second

// Find is the dotnet binary: root/dotnet when root is given (crank-agent --dotnet-root), else
// dotnet on PATH. The error says why there is none.
func Find(root string) (string, error) {
	if root != "" {
		bin := filepath.Join(root, "dotnet")
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
			return "", fmt.Errorf("no dotnet in --dotnet-root %s", root)
		}
		return bin, nil
	}
	bin, err := exec.LookPath("dotnet")
	if err != nil {
		return "", fmt.Errorf("dotnet is not on its PATH")
	}
	return bin, nil
}

// List asks bin what it has installed. A failure is said in Missing.
func List(ctx context.Context, bin string) api.DotnetInfo {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	sdks, err := exec.CommandContext(ctx, bin, "--list-sdks").Output()
	if err != nil {
		return api.DotnetInfo{Missing: fmt.Sprintf("%s --list-sdks: %v", bin, err)}
	}
	info := api.DotnetInfo{SDKs: versions(string(sdks))}
	if len(info.SDKs) == 0 {
		info.Missing = bin + " lists no SDK (only runtimes are installed)"
	}
	if out, err := exec.CommandContext(ctx, bin, "--list-runtimes").Output(); err == nil {
		info.Runtimes = runtimes(string(out))
	}
	return info
}

// versions reads `--list-sdks` lines ("8.0.404 [/usr/share/dotnet/sdk]"), oldest first.
func versions(out string) []string {
	var vs []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			vs = append(vs, f[0])
		}
	}
	slices.SortFunc(vs, compare)
	return vs
}

// runtimes reads `--list-runtimes` lines ("Microsoft.AspNetCore.App 8.0.11 [/usr/share/...]").
func runtimes(out string) map[string][]string {
	rs := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 {
			rs[f[0]] = append(rs[f[0]], f[1])
		}
	}
	for _, vs := range rs {
		slices.SortFunc(vs, compare)
	}
	return rs
}

// compare orders versions numerically part by part ("8.0.404" < "10.0.100"); a pre-release
// ("10.0.100-rc.1") sorts before its release.
func compare(a, b string) int {
	ac, apre, _ := strings.Cut(a, "-")
	bc, bpre, _ := strings.Cut(b, "-")
	ap, bp := strings.Split(ac, "."), strings.Split(bc, ".")
	for i := 0; i < max(len(ap), len(bp)); i++ {
		var x, y int
		if i < len(ap) {
			x, _ = strconv.Atoi(ap[i])
		}
		if i < len(bp) {
			y, _ = strconv.Atoi(bp[i])
		}
		if x != y {
			return x - y
		}
	}
	switch {
	case apre == bpre:
		return 0
	case apre == "":
		return 1
	case bpre == "":
		return -1
	}
	return strings.Compare(apre, bpre)
}
