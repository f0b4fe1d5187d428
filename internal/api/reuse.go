package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
)

// A job's own source need not be uploaded when the agent already holds its build: the controller
// says which content it has (its digest) and proves that it has it (a proof over every file's
// own digest, bound to the job), and the agent restores the build of that content from its
// cache. Nothing is packed, sent or extracted (docs/SECURITY.md, "Uploads").

// SourceEntry is one entry of an uploaded source as the agent extracts it: its tar type, name,
// mode (as in the tar header) and link, and the SHA-256 of its content (zero for a link).
type SourceEntry struct {
	Type byte     `json:"t"`
	Name string   `json:"n"`
	Mode int64    `json:"m"`
	Link string   `json:"l,omitempty"`
	Sum  [32]byte `json:"s"`
}

// SourceManifest is a source's entries in archive order.
type SourceManifest []SourceEntry

// Proof binds the manifest to one job: the hex SHA-256 of the job's id and every entry's fields,
// each length-prefixed. Making it needs every file's digest, which only the content gives (the
// agent never says them); a proof seen for one job is worth nothing for another.
func (m SourceManifest) Proof(jobID string) string {
	h := sha256.New()
	field := func(b []byte) {
		h.Write(strconv.AppendInt(nil, int64(len(b)), 10))
		h.Write([]byte{':'})
		h.Write(b)
	}
	field([]byte("crankshaft source proof v1"))
	field([]byte(jobID))
	for _, e := range m {
		field([]byte{e.Type})
		field([]byte(e.Name))
		field(strconv.AppendInt(nil, e.Mode, 8))
		field([]byte(e.Link))
		field(e.Sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SourceReuse asks the agent to take a job's own source from its build cache: Digest is the
// digest the agent's extraction of the source would give (extract.ExtractRoot), Proof the
// manifest's Proof for the job.
type SourceReuse struct {
	Digest string `json:"digest"`
	Proof  string `json:"proof"`
}

// SourceReused is the agent's answer: Reused when the job's folder now holds the cached build of
// that source (the source counts as uploaded), else Why not, and the source must be uploaded.
type SourceReused struct {
	Reused bool   `json:"reused"`
	Why    string `json:"why,omitempty"`
}

// ReuseSource asks the agent to restore the job's own source (and its build) from its cache
// instead of an upload. An agent without Info.SourceReuse does not know the call.
func (c *Client) ReuseSource(ctx context.Context, id string, req SourceReuse) (SourceReused, error) {
	var out SourceReused
	err := c.doJSON(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/source/reuse", req, &out)
	return out, err
}
