package agent

import (
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

func (a *Agent) handleInfo(r *http.Request) (any, error) {
	info := api.Info{
		OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU(),
		Version: a.opts.Version, Hardware: a.opts.Hardware, GoVersion: runtime.Version(),
	}
	info.Hostname, _ = os.Hostname()
	machineInfo(r.Context(), &info)
	a.runtimes.Describe(r.Context(), &info)
	describePerf(&info)
	_, info.Dotnet = a.dotnetInfo(r.Context())
	info.StatusWait = true
	info.SourceReuse = true
	info.Time = time.Now()
	return info, nil
}
