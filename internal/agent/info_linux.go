package agent

import (
	"bufio"
	"context"
	"os"
	"strings"

	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/crankshaft/crankshaft/internal/api"
)

// machineInfo fills the CPU model, memory and kernel release.
func machineInfo(ctx context.Context, info *api.Info) {
	info.CPUModel = cpuModel()
	if vm, err := mem.VirtualMemoryWithContext(ctx); err == nil {
		info.MemoryMB = float64(vm.Total) / (1 << 20)
	}
	if k, err := host.KernelVersionWithContext(ctx); err == nil {
		info.KernelRelease = k
	}
}

// cpuModel reads the first "model name" of /proc/cpuinfo ("" when there is none, as on some
// arm64 machines). gopsutil's cpu package is not used: it needs a module go.sum does not hold.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
