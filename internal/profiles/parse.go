package profiles

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/google/pprof/profile"
)

// MaxDecoded bounds a profile's size once decompressed: profile.ParseData would inflate a
// gzipped answer of a few MiB to whatever it holds.
const MaxDecoded = 256 << 20

// Parse reads a profile in the pprof format (gzipped or not) from someone not trusted (an agent,
// a job's /debug/pprof/), inflating at most MaxDecoded bytes.
func Parse(b []byte) (*profile.Profile, error) {
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("not a profile: %w", err)
		}
		raw, err := io.ReadAll(io.LimitReader(zr, MaxDecoded+1))
		if err != nil {
			return nil, fmt.Errorf("not a profile: %w", err)
		}
		if len(raw) > MaxDecoded {
			return nil, fmt.Errorf("larger than %d bytes once decompressed", MaxDecoded)
		}
		b = raw
	}
	return profile.ParseData(b)
}
