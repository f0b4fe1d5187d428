package docker

import "testing"

// TestCacheKeyUnambiguous: two different lists of what made an image never share a key. The
// third audit found the parts joined with NUL: build arguments ["X=1\x00Y=2"] (one argument, a
// value holding a NUL, which JSON carries) made the key of ["X=1", "Y=2"], so a job could build
// an image that another job with the same sources and Dockerfile would reuse as its own (issue 25,
// third audit, 5).
func TestCacheKeyUnambiguous(t *testing.T) {
	for _, pair := range [][2][]string{
		{{"upload:1", "Dockerfile", ".", "X=1\x00Y=2"}, {"upload:1", "Dockerfile", ".", "X=1", "Y=2"}},
		{{"upload:1", "Dockerfile\x00", ""}, {"upload:1", "Dockerfile", "\x00"}},
		{{"upload:1", "Dockerfile", ".", ""}, {"upload:1", "Dockerfile", "."}},
		{{"dockerLoad", "upload:1", "a\x00b", "img"}, {"dockerLoad", "upload:1", "a", "b\x00img"}},
	} {
		if a, b := cacheKey(pair[0]...), cacheKey(pair[1]...); a == b {
			t.Errorf("%q and %q share the key %s", pair[0], pair[1], a)
		}
	}
	if a, b := cacheKey("upload:1", "Dockerfile"), cacheKey("upload:1", "Dockerfile"); a != b {
		t.Errorf("the same parts give %s and %s", a, b)
	}
}
