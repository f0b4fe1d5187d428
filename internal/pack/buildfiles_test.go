package pack

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// zeros reads n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), z.n)]
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}

// TestBuildFilesBoundedInAll: each download was bounded (MaxBuildFileBytes) but not their sum, and
// crank holds the whole archive in memory: a configuration (fetched from anywhere) naming eight
// URLs of 256 MiB had crank hold 2 GiB. Past MaxBuildFilesBytes in all, the packing fails naming
// the entry and the bound; files within it are packed.
func TestBuildFilesBoundedInAll(t *testing.T) {
	half := int64(MaxBuildFilesBytes/2 + 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, &zeros{half})
	}))
	defer srv.Close()
	_, err := PackBuildFiles(context.Background(), []string{srv.URL + "/a.bin", srv.URL + "/b.bin", srv.URL + "/c.bin"}, srv.Client())
	if err == nil || !strings.Contains(err.Error(), `buildFiles "`+srv.URL+`/b.bin"`) ||
		!strings.Contains(err.Error(), "more than 256 MiB in all") {
		t.Fatalf("packed three files of %d bytes; error %v, want the second refused naming the bound", half, err)
	}
	p, err := PackBuildFiles(context.Background(), []string{srv.URL + "/a.bin"}, srv.Client())
	if err != nil || p.Files != 1 {
		t.Fatalf("one file of %d bytes: %+v, %v; want it packed", half, p, err)
	}
}
