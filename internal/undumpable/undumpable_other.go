//go:build !linux

// Package undumpable makes the calling process non-dumpable on Linux (see undumpable_linux.go);
// elsewhere it does nothing.
package undumpable

// Set does nothing off Linux.
func Set() error { return nil }
