#!/usr/bin/env bash
# compare.sh SERVER_PID URL LOADGEN_BINARY [ROUNDS] [SECONDS]
#
# Alternates wrk and the built-in generator (64 connections, one thread, pinned to CPU 1), pipelined
# 16 deep and unpipelined, ROUNDS times, printing each run's CPU per request (cpu-per-request.sh).
# wrk pipelines with the Lua script of parsers/wrk.
set -euo pipefail
server=$1 url=$2 lg=$3 rounds=${4:-3} secs=${5:-5}
here=$(cd "$(dirname "$0")" && pwd)
lua=$here/../../parsers/wrk/scripts/pipeline.lua
measure() { "$here/cpu-per-request.sh" "$server" -- taskset -c 1 "$@"; }
for ((i = 1; i <= rounds; i++)); do
  measure wrk -c 64 -t 1 -d "${secs}s" -s "$lua" "$url" -- 16
  measure "$lg" -c 64 -t 1 -d "$secs" -p 16 "$url"
  measure wrk -c 64 -t 1 -d "${secs}s" "$url"
  measure "$lg" -c 64 -t 1 -d "$secs" "$url"
done
