package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/netguard"
)

// DefaultHTTPTimeout bounds the fetch of an http(s) configuration when LoadOptions.HTTPClient is nil.
const DefaultHTTPTimeout = 10 * time.Second

// MaxConfigBytes caps one configuration file or URL.
const MaxConfigBytes = 8 << 20

// LoadOptions tune Load.
type LoadOptions struct {
	// HTTPClient fetches http(s) configurations and imports; nil means netguard's client (no
	// link-local addresses) with DefaultHTTPTimeout.
	HTTPClient *http.Client
	// Logger receives debug lines (profile entries that match nothing); nil means slog.Default().
	Logger *slog.Logger
	// Strict makes unknown keys errors instead of warnings (crank ignores them).
	Strict bool
	// ImportMap reads the http(s) configurations and imports under its prefixes from local
	// folders instead of fetching them (--import-map, CRANK_IMPORT_MAP). A file so read is still
	// the file of its URL: named by it, its relative imports resolved against it, and what a
	// fetched file may not do it may not do either (docs/SECURITY.md).
	ImportMap []ImportMapping
}

// Config is the merge of every loaded file and its imports. It is read-only: Resolve may be
// called many times (and from several goroutines).
type Config struct {
	root *node
	// dirs maps each local file's name (as in positions) to its absolute folder, for
	// source.localFolder.
	dirs   map[string]string
	log    *slog.Logger
	strict bool
	// warns are unknown keys (not used); notes are crank keys that have no effect here.
	warns, notes []string
}

// Warnings returns what the configuration's root holds that is not used: unknown keys (warnings)
// and crank keys that have no effect here (notes).
func (c *Config) Warnings() (warnings, notes []string) { return c.warns, c.notes }

// Load reads the configuration files or URLs in order, each with its imports, and merges them:
// later files over earlier ones. Every problem found is returned at once.
func Load(ctx context.Context, paths []string, opts LoadOptions) (*Config, error) {
	if len(paths) == 0 {
		return nil, errors.New("config: no configuration file given (--config)")
	}
	l := &loader{ctx: ctx, client: opts.HTTPClient, dirs: map[string]string{}, maps: opts.ImportMap}
	if l.client == nil {
		l.client = netguard.Client(DefaultHTTPTimeout)
	}
	root := newMap(Pos{})
	var errs []error
	for _, p := range paths {
		if !isURL(p) {
			p = filepath.Clean(p)
		}
		n, err := l.load(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		root = mergeFile(root, n)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	c := &Config{root: root, dirs: l.dirs, log: opts.Logger, strict: opts.Strict}
	if c.log == nil {
		c.log = slog.Default()
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

type loader struct {
	ctx    context.Context
	client *http.Client
	stack  []string // files being loaded, to report import cycles
	loads  int      // files read so far (see countLoad)
	dirs   map[string]string
	maps   []ImportMapping
}

// load reads one file and its imports (in order), the file itself merged last so it wins.
func (l *loader) load(loc string) (*node, error) {
	if slices.Contains(l.stack, loc) {
		return nil, fmt.Errorf("import cycle: %s -> %s", strings.Join(l.stack, " -> "), loc)
	}
	if err := l.countLoad(loc); err != nil {
		return nil, err
	}
	l.stack = append(l.stack, loc)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()

	data, err := l.read(loc)
	if err != nil {
		return nil, err
	}
	n, err := parseYAML(data, loc)
	if err != nil {
		return nil, err
	}
	if !n.isMap() {
		return nil, fmt.Errorf("%s: the top level must be a mapping (variables, jobs, scenarios, profiles)", n.pos)
	}
	canonicalKeys(n)
	merged := newMap(n.pos)
	var errs []error
	if imports := n.get("imports"); !imports.isNull() {
		if !imports.isList() {
			return nil, fmt.Errorf("%s: imports must be a list of paths or URLs", imports.pos)
		}
		for _, it := range imports.items {
			ref, ok := it.str()
			if !ok || ref == "" {
				errs = append(errs, fmt.Errorf("%s: an import must be a path or URL", it.pos))
				continue
			}
			target := importTarget(loc, ref)
			if isURL(loc) && !isURL(target) {
				errs = append(errs, fmt.Errorf("%s: import %q: a configuration loaded from a URL imports only http(s) URLs, not %q on this machine", it.pos, ref, target))
				continue
			}
			in, err := l.load(target)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: import %q: %w", it.pos, ref, err))
				continue
			}
			merged = mergeFile(merged, in)
		}
	}
	return mergeFile(merged, n.without("imports")), errors.Join(errs...)
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// importTarget resolves ref against the importing file's folder (or URL).
func importTarget(base, ref string) string {
	if isURL(ref) {
		return ref
	}
	if isURL(base) {
		if b, err := url.Parse(base); err == nil {
			if r, err := url.Parse(ref); err == nil {
				return b.ResolveReference(r).String()
			}
		}
		return ref
	}
	if filepath.IsAbs(ref) {
		return ref
	}
	return filepath.Join(filepath.Dir(base), ref)
}

func (l *loader) read(loc string) ([]byte, error) {
	if isURL(loc) {
		m, rel, ok, err := mapURL(l.maps, loc)
		switch {
		case err != nil:
			return nil, err
		case ok:
			return readMapped(m, rel, loc)
		}
		return l.fetch(loc)
	}
	f, err := os.Open(loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if abs, err := filepath.Abs(loc); err == nil {
		l.dirs[loc] = filepath.Dir(abs)
	}
	return readCapped(f, loc)
}

func (l *loader) fetch(u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w; %s", u, err, mapHint(u, l.maps))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: %s; %s", u, resp.Status, mapHint(u, l.maps))
	}
	return readCapped(resp.Body, u)
}

func readCapped(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, MaxConfigBytes)
	}
	return data, nil
}
