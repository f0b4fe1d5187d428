package agent

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/runtime"
)

// portPoll is how often a job's port is tried while waiting for it to be ready.
const portPoll = 50 * time.Millisecond

// waitReady returns once the job is ready: its readyStateText shows in the output written since
// offset from, else its port accepts a TCP connection on 127.0.0.1, else at once. It fails when
// the process exits first or startTimeout passes, quoting the output's last lines.
func (a *Agent) waitReady(ctx context.Context, j *job, p runtime.Handle, from int64) error {
	timeout := j.spec.StartTimeout.Std()
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var what string
	var err error
	switch {
	case j.spec.ReadyStateText != "":
		what = fmt.Sprintf("text %q in the output", j.spec.ReadyStateText)
		err = waitText(tctx, j, p, from)
	case j.spec.Port != 0:
		what = fmt.Sprintf("port %d to accept connections", j.spec.Port)
		err = waitPort(tctx, p, j.spec.Port)
	default:
		return nil
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return errStopping
	case err == errExited:
		e := p.Exit()
		j.setExit(e)
		return fmt.Errorf("job %s: %s exited before it was ready (%s; waited for %s); last output:\n%s",
			j.id, j.program(), e, what, j.out.Tail(from, tailLines))
	default:
		return fmt.Errorf("job %s: %s not ready within %s (waited for %s); last output:\n%s",
			j.id, j.program(), timeout, what, j.out.Tail(from, tailLines))
	}
}

// errExited: the process ended while readiness was awaited.
var errExited = fmt.Errorf("process exited")

func waitText(ctx context.Context, j *job, p runtime.Handle, from int64) error {
	text := j.spec.ReadyStateText
	for {
		changed := j.out.Changed() // taken before the look, so no write is missed
		if j.out.Index(text, from) >= 0 {
			return nil
		}
		select {
		case <-changed:
		case <-p.Wait():
			if j.out.Index(text, from) >= 0 {
				return nil
			}
			return errExited
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func waitPort(ctx context.Context, p runtime.Handle, port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	t := time.NewTicker(portPoll)
	defer t.Stop()
	var d net.Dialer
	for {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		c, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-t.C:
		case <-p.Wait():
			return errExited
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
