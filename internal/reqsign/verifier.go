package reqsign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"time"
)

// Verifier checks signed requests on the agent.
type Verifier struct {
	key    []byte
	window time.Duration
	now    func() time.Time
	cache  *ReplayCache
	// started (with its monotonic reading): a request signed before the verifier existed is
	// refused, since the nonces an agent saw before a restart are forgotten (a capture replayed
	// to the restarted agent). When the verifier started is taken as now minus its uptime, so a
	// wall clock that NTP steps back does not refuse what is signed after the step.
	started time.Time
}

// NewVerifier checks requests signed with token's key, within window (DefaultWindow when <= 0)
// of now (time.Now when nil), remembering nonces in cache (a new one of DefaultReplayCapacity when nil).
func NewVerifier(token string, window time.Duration, now func() time.Time, cache *ReplayCache) *Verifier {
	if window <= 0 {
		window = DefaultWindow
	}
	if now == nil {
		now = time.Now
	}
	if cache == nil {
		cache = NewReplayCache(0)
	}
	return &Verifier{key: Key(token), window: window, now: now, cache: cache, started: time.Now()}
}

// Now is the verifier's clock (what the agent answers in TimeHeader).
func (v *Verifier) Now() time.Time { return v.now() }

// Check verifies r's signature, time and nonce. A body it reads whole (at most maxBody bytes) and
// checks now, unless stream, when r.Body is replaced by a reader that fails with ErrBody at its end
// if the body was not the signed one: a streamed body's reader must read it to its end and
// undo what it did when that fails.
func (v *Verifier) Check(r *http.Request, stream bool, maxBody int64) error {
	s, err := Parse(r.Header.Get("Authorization"), r.Method, r.URL.RequestURI())
	if err != nil {
		return err
	}
	now := v.now()
	if err := s.Verify(v.key, now, v.window); err != nil {
		return err
	}
	if started := now.Add(-time.Since(v.started)).Truncate(time.Millisecond); s.Time.Before(started) {
		return fmt.Errorf("%w: the request was signed before the agent started (%s)", ErrTime, started.Format(time.RFC3339Nano))
	}
	if err := v.cache.Add(s.Nonce, s.Time.Add(v.window), now); err != nil {
		return err
	}
	if r.Body == nil { // a server's request always has one; a client's may not
		r.Body = http.NoBody
	}
	if stream {
		d := &digestReader{r: r.Body, sum: sha256.New(), want: func(digest string) bool { return digest == s.Body }}
		if s.Body == InTrailer {
			d.want = func(digest string) bool {
				return checkTrailer(v.key, s.MAC, r.Trailer.Get(BodyTrailer), digest)
			}
		}
		r.Body = d
		return nil
	}
	if s.Body == InTrailer {
		return fmt.Errorf("%w: only an upload's digest may come in a trailer", ErrMalformed)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(body)) > maxBody {
		return fmt.Errorf("%w: the body is larger than %d bytes", ErrTooLarge, maxBody)
	}
	if BodyDigest(body) != s.Body {
		return ErrBody
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}

// digestReader hashes what it reads and fails at the end when want refuses the digest.
type digestReader struct {
	r    io.ReadCloser
	sum  hash.Hash
	want func(digest string) bool
}

func (d *digestReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.sum.Write(p[:n])
	if err == io.EOF && !d.want(hex.EncodeToString(d.sum.Sum(nil))) {
		return n, ErrBody
	}
	return n, err
}

func (d *digestReader) Close() error { return d.r.Close() }
