//go:build !linux

package sample

import "errors"

// CgroupSampler is Linux only.
type CgroupSampler struct{}

// NewCgroup fails outside Linux.
func NewCgroup(string) (*CgroupSampler, error) { return nil, errors.New("cgroups are Linux only") }

// Sample fails outside Linux.
func (s *CgroupSampler) Sample() (Stats, error) { return Stats{}, errors.New("cgroups are Linux only") }
