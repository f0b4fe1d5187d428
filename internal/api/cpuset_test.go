package api

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCPUSet(t *testing.T) {
	for in, want := range map[string][]int{"": nil, "0": {0}, "0-3": {0, 1, 2, 3}, " 3,0-1 ,1": {0, 1, 3}, "8-9,2": {2, 8, 9}} {
		got, err := ParseCPUSet(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCPUSet(%q) = %v, %v; want %v", in, got, err, want)
		}
		if in != "" && FormatCPUSet(got) != FormatCPUSet(want) {
			t.Errorf("FormatCPUSet(%v) = %q", got, FormatCPUSet(got))
		}
	}
	if s := FormatCPUSet([]int{0, 1, 2, 5, 7, 8}); s != "0-2,5,7-8" {
		t.Errorf("FormatCPUSet = %q", s)
	}
	for in, want := range map[string]string{"a": "not a CPU number", "3-1": "backwards", "-1": "not a CPU", "0-99999": "beyond", "1,": "not a CPU"} {
		if _, err := ParseCPUSet(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCPUSet(%q) error %v, want %q", in, err, want)
		}
	}
}
