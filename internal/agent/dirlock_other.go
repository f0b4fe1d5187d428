//go:build !unix

package agent

import "os"

// lockDir does nothing where there is no flock.
func lockDir(string) (*os.File, error) { return nil, nil }
