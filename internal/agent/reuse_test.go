package agent

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/pack"
)

// reuseFixture is an agent with a build cache and a source folder crank would upload.
type reuseFixture struct {
	ta  *testAgent
	dir string
	job api.Job
	mu  sync.Mutex
	ids []string // the jobs run
}

func newReuseFixture(t *testing.T) *reuseFixture {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.sh"), []byte("#!/bin/sh\necho hello\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ta := newTestAgent(t, Options{CacheDir: filepath.Join(t.TempDir(), "builds")})
	job := api.Job{Executable: "./app", WaitForExit: true, BuildCommand: "cp app.sh app",
		Source: &api.Source{LocalFolder: dir}}
	return &reuseFixture{ta: ta, dir: dir, job: job}
}

// source is what crank computes of the folder: its digest and manifest.
func (f *reuseFixture) source(t *testing.T) *pack.Source {
	t.Helper()
	src, err := pack.Digest(context.Background(), f.dir, pack.Exclude{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// run submits the job, uploads the folder unless the agent takes it from its cache, runs it to
// its end and says whether the source was taken from the cache.
func (f *reuseFixture) run(t *testing.T) (api.JobStatus, bool) {
	t.Helper()
	ctx := context.Background()
	id, err := f.ta.c.Submit(ctx, f.job)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.ids = append(f.ids, id)
	f.mu.Unlock()
	src := f.source(t)
	ans, err := f.ta.c.ReuseSource(ctx, id, api.SourceReuse{Digest: src.Digest, Proof: src.Manifest.Proof(id)})
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Reused {
		pk, err := pack.Pack(f.dir, pack.Exclude{})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.ta.c.Upload(ctx, id, bytes.NewReader(pk.TarGz)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.ta.c.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	st := f.ta.waitState(t, id, api.StateStopped, api.StateFailed)
	if st.State != api.StateStopped {
		t.Fatalf("job: %s %s", st.State, st.Error)
	}
	if out, _ := f.ta.c.Output(ctx, id, 0); !bytes.Contains([]byte(out), []byte("hello")) {
		t.Errorf("job's output %q lacks its program's", out)
	}
	return st, ans.Reused
}

// TestSourceReusedWithProof: once a source was built, a job proving it has that source runs
// without an upload, on the cached build; a changed file is another source and is uploaded.
func TestSourceReusedWithProof(t *testing.T) {
	t.Parallel()
	f := newReuseFixture(t)
	if st, reused := f.run(t); reused || st.BuildReused {
		t.Fatalf("empty cache: source reused %v, build reused %v", reused, st.BuildReused)
	}
	if st, reused := f.run(t); !reused || !st.BuildReused || st.BuildTimeMs != 0 {
		t.Fatalf("same source: source reused %v, build reused %v (%v ms), want both", reused, st.BuildReused, st.BuildTimeMs)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "app.sh"), []byte("#!/bin/sh\necho hello again\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st, reused := f.run(t); reused || st.BuildReused {
		t.Fatalf("changed file: source reused %v, build reused %v, want neither", reused, st.BuildReused)
	}
}

// TestForgedReuseRefused: the digest of a cached source (it is in the agent's log) is not enough:
// a proof made for another job, of other file digests, or none, gets nothing, and the job still
// awaits its upload; a second claim after a hit is refused as a second upload is.
func TestForgedReuseRefused(t *testing.T) {
	t.Parallel()
	f := newReuseFixture(t)
	f.run(t) // builds and caches it
	src := f.source(t)
	ctx := context.Background()
	id, err := f.ta.c.Submit(ctx, f.job)
	if err != nil {
		t.Fatal(err)
	}
	guessed := append(api.SourceManifest(nil), src.Manifest...)
	for i := range guessed {
		guessed[i].Sum = [32]byte{} // names and modes are public, the files' digests are not
	}
	for name, proof := range map[string]string{
		"none":             "",
		"another job's":    src.Manifest.Proof("0123456789abcdef"),
		"guessed contents": guessed.Proof(id),
		"the digest":       src.Digest,
	} {
		ans, err := f.ta.c.ReuseSource(ctx, id, api.SourceReuse{Digest: src.Digest, Proof: proof})
		if err != nil || ans.Reused || ans.Why != "the proof does not match the cached source's" {
			t.Errorf("proof %s: %+v, %v; want refused for its proof", name, ans, err)
		}
	}
	forged := api.SourceReuse{Digest: "00" + src.Digest[2:], Proof: src.Manifest.Proof(id)}
	if ans, err := f.ta.c.ReuseSource(ctx, id, forged); err != nil || ans.Reused || ans.Why != "not in the build cache" {
		t.Errorf("another digest: %+v, %v; want not in the build cache", ans, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(f.ta.opts.Dir, id)); len(ents) != 0 {
		t.Errorf("refused claims left %d files in the job's folder", len(ents))
	}
	if st, _ := f.ta.c.Status(ctx, id); st.State != api.StateWaiting {
		t.Errorf("after refused claims the job is %s, want %s", st.State, api.StateWaiting)
	}
	if ans, err := f.ta.c.ReuseSource(ctx, id, api.SourceReuse{Digest: src.Digest, Proof: src.Manifest.Proof(id)}); err != nil || !ans.Reused {
		t.Fatalf("the right proof: %+v, %v", ans, err)
	}
	_, err = f.ta.c.ReuseSource(ctx, id, api.SourceReuse{Digest: src.Digest, Proof: src.Manifest.Proof(id)})
	var ae *api.AgentError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusConflict {
		t.Errorf("a second claim: %v, want 409", err)
	}
}

// TestConcurrentReuse: jobs taking the same cached source at once each get a whole copy.
func TestConcurrentReuse(t *testing.T) {
	t.Parallel()
	f := newReuseFixture(t)
	f.run(t)
	var wg sync.WaitGroup
	results := make([]bool, 4)
	for i := range results {
		wg.Go(func() {
			st, reused := f.run(t)
			results[i] = reused && st.BuildReused
		})
	}
	wg.Wait()
	for i, ok := range results {
		if !ok {
			t.Errorf("job %d did not run on the cached source and build", i)
		}
	}
}

// TestSpareTakenAndMadeAgain: a deleted job whose folder held a cached build leaves a spare copy
// of it in the cache; the next job taking that source gets the spare (renamed, so the cache holds
// none until that job is deleted), and its deletion makes the next.
func TestSpareTakenAndMadeAgain(t *testing.T) {
	t.Parallel()
	f := newReuseFixture(t)
	ctx := context.Background()
	spares := func() []string {
		m, _ := filepath.Glob(filepath.Join(f.ta.opts.CacheDir, "*.spare"))
		return m
	}
	deleteAll := func() {
		for _, id := range f.ids {
			if err := f.ta.c.Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		f.ids = nil
		f.ta.after.Wait() // the spares those deletions make
	}
	f.run(t)
	if got := spares(); len(got) != 0 {
		t.Fatalf("spares before any job was deleted: %v", got)
	}
	deleteAll()
	if got := spares(); len(got) != 1 {
		t.Fatalf("spares after the built job was deleted: %v, want 1", got)
	}
	if st, reused := f.run(t); !reused || !st.BuildReused {
		t.Fatalf("source reused %v, build reused %v, want both", reused, st.BuildReused)
	}
	if got := spares(); len(got) != 0 {
		t.Errorf("spares while the job that took it runs: %v, want none", got)
	}
	deleteAll()
	if got := spares(); len(got) != 1 {
		t.Errorf("spares after it was deleted: %v, want 1", got)
	}
}
