//go:build !unix

package agent

import "os"

// ownedFolder creates dir; ownership is not checked where there are no Unix owners.
func ownedFolder(dir string) error { return os.MkdirAll(dir, 0o755) }
