# syntax=docker/dockerfile:1
# crank-agent image: the agent, the Go load tools (bombardier, ghz) and wrk on Debian slim.
# The Go toolchain is kept because jobs build their apps on the agent (buildCommand: go build ...).
# Build from the repository root: docker build -f docker/agent.Dockerfile .

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/crank-agent ./cmd/crank-agent && \
    CGO_ENABLED=0 go build -trimpath -o /out/ github.com/codesenberg/bombardier github.com/bojand/ghz/cmd/ghz

FROM debian:bookworm-slim
RUN apt-get update && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends wrk git ca-certificates && \
    rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/go /usr/local/go
COPY --from=build /out/ /usr/local/bin/
ENV PATH=/usr/local/go/bin:$PATH
RUN useradd --system --create-home --home-dir /home/crank crank
USER crank
WORKDIR /home/crank
EXPOSE 5010
ENTRYPOINT ["crank-agent"]
CMD ["--url", "http://0.0.0.0:5010", "--dir", "/home/crank/jobs"]
