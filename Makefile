# Crankshaft. `make build` builds the CLI and the agent (what the README's first scenario needs);
# `make tools` the Go load tools bombardier and ghz (for --load.job bombardier and scenarios/grpc.yml's
# grpc-unary); `make test` installs what the tests need (Debian packages, influxd, the Go load
# tools) and runs every test.
GO        ?= go
BIN       := bin
CACHE     := .cache
GOFLAGS   ?= -buildvcs=false
export GOFLAGS

.PHONY: build tools agents test check test-deps test-fresh measure fuzz fuzz-smoke bench clean

# One `go build` for both: they share most packages. scripts/building.sh says what is built and,
# every 5 s, that it still is (a first build with empty Go caches takes a minute or two).
build:
	@sh scripts/building.sh "bin/crank and bin/crank-agent" $(GO) build -o $(BIN)/ ./cmd/crank ./cmd/crank-agent

# The Go load tools, found next to the agent: bin/bombardier (--load.job bombardier) and bin/ghz
# (scenarios/grpc.yml's grpc-unary). `make test-deps` builds them too.
tools:
	@sh scripts/building.sh "bin/bombardier and bin/ghz" $(GO) build -o $(BIN)/ github.com/codesenberg/bombardier github.com/bojand/ghz/cmd/ghz

# Agents for x64 and ARM benchmark machines, with the Go load tools beside them.
agents:
	for arch in amd64 arm64; do \
	  CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -o $(BIN)/crank-agent-linux-$$arch ./cmd/crank-agent || exit 1; \
	done

# The Go load tools (make tools), Debian packages (wrk, h2load, nginx, qemu for the arm64 agent test, shellcheck for actionlint, git,
# ip for the network-namespace tests, systemd-analyze for the agent's unit, chromium for the crank
# report test, script from util-linux for the terminal progress test, the Docker engine for Docker
# jobs, the PostgreSQL server for fortunes, perf for `collect`), actionlint into bin/, and influxd 1.8.10, built from
# the Go module proxy once and cached in .cache/bin. PostgreSQL's programs (in
# /usr/lib/postgresql/<version>/bin) are linked into .cache/bin, which `make test` puts on PATH.
test-deps: tools
	@missing=""; \
	for t in wrk:wrk h2load:nghttp2-client nginx:nginx-light qemu-aarch64-static:qemu-user-static shellcheck:shellcheck \
	         git:git ip:iproute2 systemd-analyze:systemd chromium:chromium script:util-linux docker:docker.io perf:linux-perf; do \
	  command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t#*:}"; \
	done; \
	command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else echo "warning: not root, cannot install$$missing; the tests that need them will be skipped (they fail under CI=true)"; fi; \
	fi
	@mkdir -p $(CACHE)/bin; \
	if ! command -v initdb >/dev/null 2>&1; then \
	  bindir=$$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1); \
	  for p in initdb postgres pg_ctl; do [ -z "$$bindir" ] || ln -sf $$bindir/$$p $(CACHE)/bin/$$p; done; \
	fi
	@if command -v docker >/dev/null 2>&1 && ! docker info >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  service docker start >/dev/null 2>&1 || echo "warning: the Docker engine is not running; the Docker job tests fail under CI=true"; \
	fi
	$(GO) build -o $(BIN)/ github.com/rhysd/actionlint/cmd/actionlint
	@if [ ! -x $(CACHE)/bin/influxd ]; then \
	  echo "building influxd v1.8.10 into $(CACHE)/bin (about 3 minutes, once)"; \
	  GOBIN=$(CURDIR)/$(CACHE)/bin $(GO) install github.com/influxdata/influxdb/cmd/influxd@v1.8.10 || exit 1; \
	fi

# The packages `make check` has just tested under the race detector are not tested again. The
# gate holds no measuring test (those are in `make measure`), so tests run side by side: the
# end-to-end package, the longest by far (12.7 minutes alone), in two go test processes at once,
# one with the tests named E2E_FIRST followed by the other packages (-p 2), the other with the rest
# (about 7.5 minutes for both on two cores, 2026-12-02). Every e2e test makes its own folders,
# ports, namespaces and images, so two processes do not meet. The exit status is the worse of the
# two; each process prints its own summary.
# GO_TEST runs go test with the tools built here (bin/, .cache/bin/) first on the PATH.
GO_TEST   := PATH="$(CURDIR)/$(BIN):$(CURDIR)/$(CACHE)/bin:$$PATH" $(GO) test -count=1
E2E_FIRST := ^Test[A-D]
test: test-deps build check
	( $(GO_TEST) -timeout 30m -run '$(E2E_FIRST)' ./internal/e2e; first=$$?; \
	  $(GO_TEST) -p 2 -timeout 30m $$($(GO) list ./... | grep -v -E '/internal/(agent|controller|loadgen|app|progress|e2e)(/|$$)'); \
	  exit $$(( first | $$? )) ) & one=$$!; \
	$(GO_TEST) -timeout 30m -skip '$(E2E_FIRST)' ./internal/e2e; two=$$?; \
	wait $$one; one=$$?; \
	if [ $$one -ne 0 ] || [ $$two -ne 0 ]; then echo "make test: FAIL"; exit 1; fi

# The checks `make test` runs before the tests: gofmt, go vet, staticcheck (pinned; both with the
# measure tag, so that they read the measuring tests' files too: every other file is in that build), go.mod tidy, and the
# packages with the most concurrency (agent, controller, load generator, apps, progress) under the
# race detector.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
RACE_PKGS   := ./internal/agent/... ./internal/controller/... ./internal/loadgen/... ./internal/app/... ./internal/progress/...
check:
	@unformatted=$$("$$($(GO) env GOROOT)/bin/gofmt" -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.cache/*')); \
	  if [ -n "$$unformatted" ]; then echo "not gofmt-ed (run gofmt -w):"; echo "$$unformatted"; exit 1; fi
	$(GO) vet -tags measure ./...
	$(GO) run $(STATICCHECK) -tags measure ./...
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod or go.sum is not tidy: run go mod tidy (go mod tidy -diff shows what changes)"; exit 1; }
	$(GO_TEST) -race -timeout 15m $(RACE_PKGS)

# The measuring tests, apart from the gate: those whose outcome depends on the machine's speed (a
# req/s band, a CPU share, a capacity or bisect search, a verdict read from measured figures) are in
# files tagged `//go:build measure`, which `make test` does not build. scripts/measure.sh runs
# exactly them, one at a time; run it on a quiet machine. The scheduled workflow
# .github/workflows/measure.yml runs it nightly with the bench and its comparison.
measure: test-deps build
	PATH="$(CURDIR)/$(BIN):$(CURDIR)/$(CACHE)/bin:$$PATH" bash scripts/measure.sh $(MEASURE_ARGS)

# Exploratory fuzzing, apart from the gate: every fuzz target (one per parser and per configuration
# entry point) for FUZZTIME each. `make test` does not run it: a random search that has a bad moment on
# a busy machine (golang/go#56238) must not fail a submission. `go test` (so `make test`) already
# replays every seed and every crasher kept in testdata/fuzz; a crasher found here is kept there and
# fixed. The scheduled workflow .github/workflows/fuzz.yml runs it nightly. Longer: FUZZTIME=5m
FUZZTIME ?= 30s
FUZZ_TARGETS := internal/parsers/wrk:FuzzParse internal/parsers/h2load:FuzzParse \
	internal/parsers/bombardier:FuzzParse internal/parsers/ghz:FuzzParse internal/parsers/builtin:FuzzParse \
	internal/loadgen:FuzzRespParser internal/agent/counters:FuzzExposition internal/agent/extract:FuzzExtract \
	internal/gate:FuzzCompareResults internal/config:FuzzLoad internal/config:FuzzOverrides
fuzz fuzz-smoke:
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t#*:}; \
	  if out=$$($(GO) test ./$$pkg -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) 2>&1); then \
	    echo "fuzz ok   $$pkg $$fn"; \
	  else echo "$$out"; echo "fuzz FAIL $$pkg $$fn (the crasher is in $$pkg/testdata/fuzz/$$fn)"; exit 1; fi; \
	done

# What a new user's first `make test` meets: a fresh clone of HEAD in a temporary folder, empty Go
# module and build caches, CI=true (a missing component fails instead of skipping). Run it before
# resolving anything that changes the build, the Makefile, go.mod or what the tests need.
test-fresh:
	bash scripts/test-fresh.sh

# docs/PERFORMANCE.md: CPU per request of the apps against nginx and of crank load against wrk and
# bombardier (pinned, alternating rounds, in 3 runs that each start the servers afresh), the agent's
# CPU, crank's start-up. 7 to 12 minutes: rounds disturbed by other work are run again. The tables'
# figures also go to docs/PERFORMANCE.json, a crank result (a service per row, an iteration per
# run): crank compare OLD.json docs/PERFORMANCE.json.
# Options: make bench BENCH_ARGS="--runs 5 --only servers,agent" (go run ./bench -h).
bench: build
	$(GO) run ./bench $(BENCH_ARGS)

clean:
	rm -rf $(BIN)
