package runner

import (
	"errors"
	"fmt"
	"testing"
)

func TestCodeOf(t *testing.T) {
	for err, want := range map[error]int{
		nil:                                 ExitOK,
		errors.New("plain"):                 ExitFailed,
		Exit(ExitThresholds, nil):           ExitThresholds,
		fmt.Errorf("w: %w", Exit(130, nil)): ExitInterrupted,
	} {
		if got := CodeOf(err); got != want {
			t.Errorf("%v: %d, want %d", err, got, want)
		}
	}
	if Exit(ExitOK, errors.New("x")) != nil {
		t.Error("Exit(ExitOK) is not nil")
	}
}
