//go:build measure

package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// nginxArgs are crank's arguments for a cell of an nginx row: nginx (Debian's) with the row's
// workers serving one text file gzipped at level 9, over HTTP/1.1 or, for h2load, h2c, and the
// column's load asking for gzip.
func nginxArgs(t *testing.T, s confServer, tool confTool) []string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin = "/usr/sbin/nginx" // root's PATH has it; a test's may not
	}
	needTool(t, bin)
	port := freePorts(t, 1)[0]
	dir := nginxSite(t, bin, port, s.nginx, listenOptions(s, tool))
	cfg := writeFile(t, t.TempDir(), "nginx.yml", `
imports:`+confImports()+`
jobs:
  nginx:
    source:
      localFolder: `+dir+`
    executable: /bin/sh
    arguments: run.sh
    port: '{{serverPort}}'
scenarios:
  conform:
    application:
      job: nginx
    load:
      job: wrk
      variables:
        path: /index.txt
        customHeaders: [ 'Accept-Encoding: gzip' ]
`)
	args := []string{"--config", cfg, "--scenario", "conform", "--variable", "serverPort=" + strconv.Itoa(port)}
	return append(args, loadArgs(s, tool)...)
}

// listenOptions is the listen directive's options: reuseport when the row asks, http2 (h2c by
// prior knowledge) for h2load.
func listenOptions(s confServer, tool confTool) string {
	var o []string
	if tool.job == "h2load" {
		o = append(o, "http2")
	}
	if s.reuseport {
		o = append(o, "reuseport")
	}
	return strings.Join(o, " ")
}

// nginxSite writes the job's folder: nginx.conf (everything under the prefix the job runs in),
// run.sh starting nginx in the foreground, and www/index.txt, 26 KB of words in a fixed order.
func nginxSite(t *testing.T, bin string, port, workers int, listen string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "www"), 0o755); err != nil {
		t.Fatal(err)
	}
	words := []string{"alpha", "beta", "gamma", "delta", "server", "request", "thread", "kernel", "socket", "buffer"}
	rng := rand.New(rand.NewPCG(1, 2))
	var text strings.Builder
	for text.Len() < 26<<10 {
		text.WriteString(words[rng.IntN(len(words))])
		text.WriteByte(' ')
	}
	writeFile(t, filepath.Join(dir, "www"), "index.txt", text.String())
	// user root: the workers read the job's folder, which only its owner may (a no-op unless root).
	writeFile(t, dir, "nginx.conf", fmt.Sprintf(`user root;
worker_processes %d;
error_log stderr warn;
pid nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path tmp; proxy_temp_path tmp; fastcgi_temp_path tmp; uwsgi_temp_path tmp; scgi_temp_path tmp;
  gzip on; gzip_comp_level 9; gzip_types text/plain; gzip_min_length 0;
  types { text/plain txt; }
  server {
    listen 127.0.0.1:%d %s;
    root www;
  }
}
`, workers, port, listen))
	writeFile(t, dir, "run.sh", "mkdir -p tmp\nexec "+bin+` -p "$(pwd)/" -c "$(pwd)/nginx.conf" -g 'daemon off;'`+"\n")
	return dir
}
