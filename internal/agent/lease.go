package agent

import (
	"context"
	"time"
)

// leaseLoop stops and deletes the jobs whose controller has not read their status for a lease,
// until ctx ends.
func (a *Agent) leaseLoop(ctx context.Context) {
	defer close(a.leaseDone)
	defer a.reaping.Wait()
	every := min(max(a.opts.Lease/4, 10*time.Millisecond), 5*time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			for _, j := range a.allJobs() {
				if j.expire(now, a.opts.Lease) {
					j.log.Warn("lease expired: stopping and deleting the job", "lease", a.opts.Lease)
					a.reaping.Go(func() { a.deleteJob(j, "lease expired") })
				}
			}
		}
	}
}
