// Package reqsign signs crank's requests to its agents with a key derived from the agent's token,
// and checks them on the agent: the token itself never crosses the network, and a captured request
// cannot be changed, replayed or sent late.
//
// A signed request carries
//
//	Authorization: Crank-HMAC-SHA256 t=<unix ms>, n=<nonce>, b=<hex SHA-256 of the body>, s=<hex MAC>
//
// where the MAC is HMAC-SHA256, keyed by Key(token), over the method, the request URI (path and
// query, as sent), t, n and b. The Host is not signed: agents are reached by names, addresses and
// proxies.
package reqsign

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Scheme is the Authorization scheme of a signed request.
const Scheme = "Crank-HMAC-SHA256"

// TimeHeader is the answer header in which an agent gives its clock (unix milliseconds), on every
// answer, /health and 401s included, so that a client learns the agent's clock and signs with it.
const TimeHeader = "Crank-Time"

// DefaultWindow is how far a request's time may be from the agent's clock, either way.
const DefaultWindow = 5 * time.Minute

// Key derives the signing key from an agent's token.
func Key(token string) []byte {
	k, err := hkdf.Key(sha256.New, []byte(token), nil, "crank-agent request signing v1", sha256.Size)
	if err != nil { // only for a length hkdf cannot give; sha256.Size it can
		panic(err)
	}
	return k
}

// BodyDigest is the hex SHA-256 of a body (of "" for a request without one).
func BodyDigest(body []byte) string {
	s := sha256.Sum256(body)
	return hex.EncodeToString(s[:])
}

// Signed is one signed request's parts.
type Signed struct {
	Time   time.Time
	Nonce  string
	Body   string // hex SHA-256 of the body
	MAC    string
	Method string
	URI    string
}

func (s Signed) mac(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s\n%s\n%s\n%d\n%s\n%s", Scheme, s.Method, s.URI, s.Time.UnixMilli(), s.Nonce, s.Body)
	return m.Sum(nil)
}

// InTrailer is the b= of a streamed body whose digest follows it, in the BodyTrailer trailer.
const InTrailer = "trailer"

// BodyTrailer is the trailer of a streamed body: "b=<hex SHA-256>, s=<hex MAC>", the MAC keyed as
// the request's over the request's own MAC and the digest.
const BodyTrailer = "Crank-Body"

// Authorization is the header value signing method uri at time now (the agent's clock) for a body
// whose digest is bodyDigest (InTrailer: given by BodyTrailerValue after the body). It returns the
// request's MAC too, which the trailer's signs on.
func Authorization(key []byte, method, uri string, now time.Time, bodyDigest string) (header, mac string) {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	s := Signed{Time: now, Nonce: hex.EncodeToString(nonce), Body: bodyDigest, Method: method, URI: uri}
	mac = hex.EncodeToString(s.mac(key))
	return fmt.Sprintf("%s t=%d, n=%s, b=%s, s=%s", Scheme, now.UnixMilli(), s.Nonce, s.Body, mac), mac
}

// BodyTrailerValue is the BodyTrailer of a streamed body whose digest is bodyDigest, sent with a
// request whose MAC was requestMAC.
func BodyTrailerValue(key []byte, requestMAC, bodyDigest string) string {
	return fmt.Sprintf("b=%s, s=%s", bodyDigest, hex.EncodeToString(trailerMAC(key, requestMAC, bodyDigest)))
}

func trailerMAC(key []byte, requestMAC, bodyDigest string) []byte {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s body\n%s\n%s", Scheme, requestMAC, bodyDigest)
	return m.Sum(nil)
}

// checkTrailer tells whether a BodyTrailer value signs digest for the request whose MAC is requestMAC.
func checkTrailer(key []byte, requestMAC, value, digest string) bool {
	f, err := fields(value)
	if err != nil {
		return false
	}
	got, err := hex.DecodeString(f["s"])
	return err == nil && f["b"] == digest && hmac.Equal(got, trailerMAC(key, requestMAC, digest))
}

// fields reads a list "k=v, k=v" (a signature's, a trailer's): a part without "=" or a key given
// twice is malformed.
func fields(list string) (map[string]string, error) {
	f := map[string]string{}
	for part := range strings.SplitSeq(list, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if _, twice := f[k]; !ok || twice {
			return nil, fmt.Errorf("%w: %q", ErrMalformed, part)
		}
		f[k] = v
	}
	return f, nil
}

// Errors of Parse and Check, answered 401 by the agent but where said.
var (
	ErrMissing   = errors.New("the request is not signed (Authorization: " + Scheme + " ...)")
	ErrMalformed = errors.New("malformed signature")
	ErrBadMAC    = errors.New("wrong signature (wrong token, or the request was changed on its way)")
	ErrTime      = errors.New("request time outside the agent's window")
	ErrReplayed  = errors.New("request already seen (a replay)")
	ErrBody      = errors.New("the body does not match its signed digest")
	ErrTooLarge  = errors.New("request too large") // answered 413
)

// Parse reads a signed request's Authorization header; method and uri are the request's.
func Parse(header, method, uri string) (Signed, error) {
	rest, ok := strings.CutPrefix(header, Scheme+" ")
	if !ok {
		return Signed{}, ErrMissing
	}
	f, err := fields(rest)
	if err != nil {
		return Signed{}, err
	}
	s := Signed{Method: method, URI: uri, Nonce: f["n"], Body: f["b"], MAC: f["s"]}
	for k := range f {
		if k != "t" && k != "n" && k != "b" && k != "s" {
			return Signed{}, fmt.Errorf("%w: unknown field %q", ErrMalformed, k)
		}
	}
	if v, ok := f["t"]; ok {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return Signed{}, fmt.Errorf("%w: t=%q", ErrMalformed, v)
		}
		s.Time = time.UnixMilli(ms)
	}
	if !isHex(s.Nonce, 16, 64) || (!isHex(s.Body, 64, 64) && s.Body != InTrailer) || !isHex(s.MAC, 64, 64) || s.Time.IsZero() {
		return Signed{}, fmt.Errorf("%w: want t=, n= (hex), b= (64 hex digits or trailer) and s= (64 hex digits)", ErrMalformed)
	}
	return s, nil
}

func isHex(s string, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// Verify checks the MAC, then that the time lies within window of now.
func (s Signed) Verify(key []byte, now time.Time, window time.Duration) error {
	got, err := hex.DecodeString(s.MAC)
	if err != nil || !hmac.Equal(got, s.mac(key)) {
		return ErrBadMAC
	}
	if off := s.Time.Sub(now); off.Abs() > window {
		return fmt.Errorf("%w: the request's time is %s from the agent's clock, more than %s", ErrTime, off.Round(time.Millisecond), window)
	}
	return nil
}

// Sign signs req, whose body is body, with token's key at now (tests and tools that build their
// own requests; api.Client signs its own).
func Sign(req *http.Request, token string, now time.Time, body []byte) {
	auth, _ := Authorization(Key(token), req.Method, req.URL.RequestURI(), now, BodyDigest(body))
	req.Header.Set("Authorization", auth)
}
