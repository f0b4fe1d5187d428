package runner

import (
	"errors"
	"fmt"
)

// Exit statuses of a run (crank's; k6's for the thresholds).
const (
	ExitOK          = 0
	ExitFailed      = 1 // the run failed
	ExitBadInput    = 2
	ExitThresholds  = 99  // a threshold was crossed
	ExitInterrupted = 130 // cut short by Ctrl-C or SIGTERM (128 + SIGINT), what was measured written
)

// ExitError is an error that carries the exit status it gives (k6's errext.HasExitCode). Its
// message has been said already when Said is true.
type ExitError struct {
	Code int
	Err  error
	Said bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the exit status the error gives.
func (e *ExitError) ExitCode() int { return e.Code }

// Exit is err with exit status code; nil when code is ExitOK.
func Exit(code int, err error) error {
	if code == ExitOK {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// said is Exit for an error already reported.
func said(code int, err error) error {
	if code == ExitOK {
		return nil
	}
	return &ExitError{Code: code, Err: err, Said: true}
}

// CodeOf is the exit status an error gives: ExitOK for nil, an ExitError's code, else ExitFailed.
func CodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var e interface{ ExitCode() int }
	if errors.As(err, &e) {
		return e.ExitCode()
	}
	return ExitFailed
}
