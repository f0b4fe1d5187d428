package api

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/crankshaft/crankshaft/internal/reqsign"
)

// Bounds are what crank takes from an agent's answer before it gives up on it, naming the agent
// and the bound: a hostile or broken agent cannot exhaust crank's memory nor hold it.
type Bounds struct {
	// Status bounds every small answer: /health, a job's status, the answers to submit, start,
	// stop, delete and uploads.
	Status int64
	// Info bounds /info.
	Info int64
	// Output is the most of a job's output one read returns (the next read goes on from there).
	Output int64
	// Measurements bounds a job's measurements.
	Measurements int64
	// Profile bounds one profile's download.
	Profile int64
	// Timeout bounds every call but uploads, from the request to the answer's last byte.
	Timeout time.Duration
	// UploadSilence bounds an upload's silences: the agent reads none of it for this long, or
	// has not answered this long after the whole body was sent.
	UploadSilence time.Duration
	// UploadRate is the slowest an agent may read an upload of a known size, in bytes a second:
	// the whole of it is read within UploadSilence plus its size at this rate. An agent reading a
	// little before each silence ran out held crank for as long as it chose.
	UploadRate int64
}

// DefaultBounds: a 10-minute run sampled every second gives a job about 50 measurements a
// second of about 100 bytes, 3 MB, and a split load's generators answer one each: 32 MiB is ten
// times that. /info is a few KB, a status a few KB with the last lines of a failed job's output.
var DefaultBounds = Bounds{
	Status:        4 << 20,
	Info:          4 << 20,
	Output:        8 << 20,
	Measurements:  32 << 20,
	Profile:       32 << 20,
	Timeout:       DefaultRequestTimeout,
	UploadSilence: 30 * time.Second,
	UploadRate:    64 << 10,
}

// BoundError is an answer that exceeded a bound.
type BoundError struct {
	Agent, Method, Path string
	What                string // "larger than 4194304 bytes", "no answer within 8s"
}

func (e *BoundError) Error() string {
	return fmt.Sprintf("agent %s: %s %s: %s (crank's bound for this answer)", e.Agent, e.Method, e.Path, e.What)
}

// call is one request to the agent.
type call struct {
	method, path string
	body         io.Reader // nil: none
	digest       string    // the body's hex SHA-256, or reqsign.InTrailer ("": no body)
	contentType  string
	limit        int64         // the answer's bound
	prefix       bool          // up to limit bytes are the answer (Output), not an error beyond
	out          any           // nil: discarded; *string, *[]byte: the raw answer; else decoded from JSON
	upload       bool          // bounded by UploadSilence instead of Timeout
	timeout      time.Duration // when set, bounds this call instead of Bounds.Timeout
}

func (c *Client) doJSON(ctx context.Context, method, path string, in, out any) error {
	cl := call{method: method, path: path, limit: c.bounds.Status, out: out}
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		cl.body, cl.contentType, cl.digest = bytes.NewReader(b), "application/json", reqsign.BodyDigest(b)
	}
	return c.do(ctx, cl)
}

// upload sends a tar.gz stream, hashed first when it can be read again, else with its digest in
// a trailer.
func (c *Client) upload(ctx context.Context, path string, tgz io.Reader) error {
	cl := call{method: http.MethodPut, path: path, body: tgz, contentType: "application/gzip", limit: c.bounds.Status, upload: true, digest: reqsign.InTrailer}
	if rs, ok := tgz.(io.ReadSeeker); ok {
		h := sha256.New()
		if _, err := io.Copy(h, rs); err != nil {
			return fmt.Errorf("agent %s: PUT %s: reading the upload: %w", c.base, path, err)
		}
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("agent %s: PUT %s: reading the upload: %w", c.base, path, err)
		}
		cl.digest = hex.EncodeToString(h.Sum(nil))
	}
	return c.do(ctx, cl)
}

// do sends cl, once more when the agent refused it with a clock other than the one it was signed
// with (and the body can be sent again).
func (c *Client) do(ctx context.Context, cl call) error {
	err, clockMoved := c.once(ctx, cl)
	if !clockMoved {
		return err
	}
	if s, ok := cl.body.(io.Seeker); ok {
		if _, serr := s.Seek(0, io.SeekStart); serr != nil {
			return err
		}
	} else if cl.body != nil {
		return err
	}
	err, _ = c.once(ctx, cl)
	return err
}

func (c *Client) once(ctx context.Context, cl call) (err error, clockMoved bool) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	bound := func(what string) {
		cancel(&BoundError{Agent: c.base.String(), Method: cl.method, Path: pathOnly(cl.path), What: what})
	}
	var w *uploadWatch
	if cl.upload {
		w = &uploadWatch{silence: c.bounds.UploadSilence, bound: bound}
		if l, ok := cl.body.(interface{ Len() int }); ok && c.bounds.UploadRate > 0 {
			w.size, w.whole = int64(l.Len()), c.bounds.UploadSilence+time.Duration(float64(l.Len())/float64(c.bounds.UploadRate)*float64(time.Second))
		}
		w.start()
		defer w.stop()
	} else {
		timeout := cmp.Or(cl.timeout, c.bounds.Timeout)
		t := time.AfterFunc(timeout, func() { bound(fmt.Sprintf("no whole answer within %s", timeout)) })
		defer t.Stop()
	}
	req, err := c.request(ctx, cl, w)
	if err != nil {
		return err, false
	}
	sent := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return c.failed(ctx, cl, err), false
	}
	defer resp.Body.Close()
	w.answered(c.bounds.Timeout)
	moved := c.learnClock(resp, sent)
	if resp.StatusCode/100 != 2 {
		var eb ErrorBody
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(raw, &eb) != nil || eb.Error == "" {
			eb.Error = strings.TrimSpace(string(raw))
		}
		return &AgentError{URL: c.base.String(), StatusCode: resp.StatusCode, Message: eb.Error}, moved && resp.StatusCode == http.StatusUnauthorized
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, cl.limit+1))
	if err != nil {
		return c.failed(ctx, cl, err), false
	}
	if int64(len(raw)) > cl.limit {
		if !cl.prefix {
			return &BoundError{Agent: c.base.String(), Method: cl.method, Path: pathOnly(cl.path), What: fmt.Sprintf("answer larger than %d bytes", cl.limit)}, false
		}
		raw = raw[:cl.limit]
	}
	switch out := cl.out.(type) {
	case nil:
		return nil, false
	case *string:
		*out = string(raw)
		return nil, false
	case *[]byte:
		*out = raw
		return nil, false
	}
	if err := json.Unmarshal(raw, cl.out); err != nil {
		return fmt.Errorf("agent %s: %s %s: bad answer: %w", c.base, cl.method, pathOnly(cl.path), err), false
	}
	return nil, false
}

// request builds cl's request, signed when the client has a key.
func (c *Client) request(ctx context.Context, cl call, w *uploadWatch) (*http.Request, error) {
	body := cl.body
	var digest hash.Hash
	if w != nil {
		if cl.digest == reqsign.InTrailer {
			digest = sha256.New()
		}
		body = &watchedReader{r: body, w: w, sum: digest}
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, c.base.String()+cl.path, body)
	if err != nil {
		return nil, err
	}
	if cl.contentType != "" {
		req.Header.Set("Content-Type", cl.contentType)
	}
	if rs, ok := cl.body.(interface{ Len() int }); ok && w != nil {
		req.ContentLength = int64(rs.Len())
	}
	if c.key == nil {
		return req, nil
	}
	d := cl.digest
	if d == "" {
		d = reqsign.BodyDigest(nil)
	}
	auth, mac := reqsign.Authorization(c.key, cl.method, req.URL.RequestURI(), c.agentTime(), d)
	req.Header.Set("Authorization", auth)
	if digest != nil {
		req.ContentLength = -1
		req.Trailer = http.Header{reqsign.BodyTrailer: nil}
		body.(*watchedReader).atEOF = func(sum string) {
			req.Trailer.Set(reqsign.BodyTrailer, reqsign.BodyTrailerValue(c.key, mac, sum))
		}
	}
	return req, nil
}

// failed names the agent and, when a bound cut the call, the bound.
func (c *Client) failed(ctx context.Context, cl call, err error) error {
	var be *BoundError
	if errors.As(context.Cause(ctx), &be) {
		return be
	}
	return fmt.Errorf("agent %s: %s %s: %w", c.base, cl.method, pathOnly(cl.path), err)
}

func pathOnly(p string) string {
	path, _, _ := strings.Cut(p, "?")
	return path
}

// uploadWatch cuts an upload when the agent reads none of it for silence, or does not answer
// within silence of its end; once answered, the answer is bounded by the client's Timeout.
type uploadWatch struct {
	silence time.Duration
	bound   func(what string)
	phase   atomic.Int32 // 0 sending, 1 sent, 2 answered
	timer   *time.Timer
	// size and whole: an upload of a known size is read whole within whole (0: no such bound).
	size  int64
	whole time.Duration
	all   *time.Timer
}

func (w *uploadWatch) start() {
	if w.whole > 0 {
		w.all = time.AfterFunc(w.whole, func() {
			if w.phase.Load() == 0 {
				w.bound(fmt.Sprintf("the agent did not read the upload's %d bytes within %s", w.size, w.whole.Round(time.Millisecond)))
			}
		})
	}
	w.timer = time.AfterFunc(w.silence, func() {
		switch w.phase.Load() {
		case 0:
			w.bound(fmt.Sprintf("the agent read none of the upload for %s", w.silence))
		case 1:
			w.bound(fmt.Sprintf("no answer within %s of the upload's end", w.silence))
		default:
			w.bound("the answer did not end in time")
		}
	})
}

func (w *uploadWatch) progress() {
	if w.phase.Load() == 0 {
		w.timer.Reset(w.silence)
	}
}

func (w *uploadWatch) sent() {
	if w.phase.CompareAndSwap(0, 1) {
		w.timer.Reset(w.silence)
	}
}

func (w *uploadWatch) answered(timeout time.Duration) {
	if w == nil {
		return
	}
	w.phase.Store(2)
	w.timer.Reset(timeout)
}

func (w *uploadWatch) stop() {
	w.timer.Stop()
	if w.all != nil {
		w.all.Stop()
	}
}

// watchedReader is an upload's body: each read is progress, its end starts the wait for the
// answer, and it hashes what it reads when the digest goes in a trailer.
type watchedReader struct {
	r     io.Reader
	w     *uploadWatch
	sum   hash.Hash
	atEOF func(sum string)
}

func (r *watchedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.w.progress()
		if r.sum != nil {
			r.sum.Write(p[:n])
		}
	}
	if err == io.EOF {
		if r.atEOF != nil {
			r.atEOF(hex.EncodeToString(r.sum.Sum(nil)))
		}
		r.w.sent()
	}
	return n, err
}
