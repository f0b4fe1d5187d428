package results

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// sweepFile is what ReadVariant reads of a `crank sweep` file: a view of the two keys it needs of
// sweep.File, which declares the file and writes it (this package cannot import sweep, which
// imports it). TestRunReportAndCompareAgree reads a written sweep's variants through it.
type sweepFile struct {
	Sweep    int `json:"sweep"`
	Variants []struct {
		Name   string  `json:"name"`
		Result *Result `json:"result"`
	} `json:"variants"`
}

// IsSweepFile tells whether path holds a `crank sweep` file rather than a result file.
func IsSweepFile(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var probe struct {
		Sweep int `json:"sweep"`
	}
	return json.Unmarshal(b, &probe) == nil && probe.Sweep > 0
}

// splitVariant splits "sweep.json#dispatch=shared,cpuSet=0" at its last '#', unless a file of
// the whole name exists.
func splitVariant(path string) (file, variant string, ok bool) {
	i := strings.LastIndexByte(path, '#')
	if i < 0 {
		return "", "", false
	}
	if _, err := os.Stat(path); err == nil {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

// ReadVariant reads one variant's results from a sweep file, by its name or its 1-based index.
func ReadVariant(file, variant string) (*Result, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var s sweepFile
	if err := json.Unmarshal(b, &s); err != nil || s.Sweep == 0 {
		return nil, fmt.Errorf("%s: #%s names a sweep variant, but this is not a crank sweep file", file, variant)
	}
	var names []string
	for i, v := range s.Variants {
		if v.Name == variant || strconv.Itoa(i+1) == variant {
			if v.Result == nil || v.Result.JobResults.Jobs == nil {
				return nil, fmt.Errorf("%s: variant %q has no results yet", file, v.Name)
			}
			Upgrade(v.Result)
			return v.Result, nil
		}
		names = append(names, v.Name)
	}
	return nil, fmt.Errorf("%s: no variant %q; variants: %s", file, variant, strings.Join(names, " "))
}
