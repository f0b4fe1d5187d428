package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crankshaft/crankshaft/internal/app/httpserver"
)

type fortune struct {
	ID      int32
	Message string
}

const queryTimeout = 5 * time.Second

var page = template.Must(template.New("fortunes").Parse(`<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>{{end}}</table></body></html>`))

// app is what every handler shares.
type app struct {
	ctx      context.Context
	pool     *pgxpool.Pool
	queries  prometheus.Counter
	dbErrors prometheus.Counter
	log      *slog.Logger
}

// handler is one request slot's: it reuses its fortunes slice and output buffer.
type handler struct {
	app      *app
	fortunes []fortune
	buf      bytes.Buffer
}

func (a *app) newHandler() httpserver.Handler { return &handler{app: a} }

func (h *handler) ServeRaw(w *httpserver.Response, r *httpserver.Request) {
	switch {
	case string(r.Path) != "/fortunes":
		w.WriteString(404, "text/plain", "")
		return
	case !r.IsGetOrHead():
		w.WriteString(405, "text/plain", "")
		return
	}
	fortunes, err := h.load()
	if err != nil {
		h.app.dbErrors.Inc()
		h.app.log.Warn("fortunes query", slog.Any("err", err))
		w.WriteString(500, "text/plain; charset=utf-8", "database error")
		return
	}
	fortunes = append(fortunes, fortune{ID: 0, Message: "Additional fortune added at request time."})
	slices.SortFunc(fortunes, func(a, b fortune) int { return cmp.Compare(a.Message, b.Message) })
	h.buf.Reset()
	if err := page.Execute(&h.buf, fortunes); err != nil {
		panic(fmt.Errorf("render fortunes: %w", err)) // the server answers 500 and counts it
	}
	w.Write(200, "text/html; charset=utf-8", h.buf.Bytes())
}

// load runs the one query of a request.
func (h *handler) load() ([]fortune, error) {
	ctx, cancel := context.WithTimeout(h.app.ctx, queryTimeout)
	defer cancel()
	h.app.queries.Inc()
	rows, err := h.app.pool.Query(ctx, fortunesStatement)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", fortunesStatement, err)
	}
	defer rows.Close()
	h.fortunes = h.fortunes[:0]
	for rows.Next() {
		var f fortune
		if err := rows.Scan(&f.ID, &f.Message); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		h.fortunes = append(h.fortunes, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rows: %w", err)
	}
	return h.fortunes, nil
}
