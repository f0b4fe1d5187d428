package agent

import (
	"bytes"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/parsers/jobstats"
)

// jobStatistics reads crank's #StartJobStatistics blocks from the measured run's output (any
// job: a load tool's wrapper or an application reporting its own results) into the job's
// measurements and metadata. A block that is not valid JSON is logged and left out, as crank does.
func (a *Agent) jobStatistics(j *job, from int64) {
	out := j.out.Since(from)
	if !bytes.Contains(bytes.ToLower(out), []byte("#startjobstatistics")) {
		return
	}
	st, err := jobstats.Parse(bytes.NewReader(out), time.Now())
	if err != nil {
		j.log.Warn("job statistics", "err", err)
	}
	if st.Skipped > 0 {
		j.log.Warn("job statistics: measurements whose value is not a number are left out", "count", st.Skipped)
	}
	j.record(st.Measurements...)
	j.mu.Lock()
	j.custom = append(j.custom, st.Metadata...)
	j.mu.Unlock()
	j.log.Info("job statistics read", "metadata", len(st.Metadata), "measurements", len(st.Measurements))
}

// customMetadata is the metadata a job declared for name (the last declaration wins).
func customMetadata(j *job, name string) (api.Metadata, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := len(j.custom) - 1; i >= 0; i-- {
		if j.custom[i].Name == name {
			return j.custom[i], true
		}
	}
	return api.Metadata{}, false
}
