#!/usr/bin/env bash
# cpu-per-request.sh SERVER_PID -- CLIENT COMMAND...
#
# Runs the client command, and prints the CPU time (user + system, from /proc and getrusage) that
# the client and the server process spent per request. The request count is read from the client's
# output: wrk's "N requests in" or crank load's "N requests in". Pin both with taskset, e.g.
#
#   taskset -c 0 nginx ... &   (or taskset -c 0 helloserver &)
#   cpu-per-request.sh $(pgrep -o nginx) -- taskset -c 1 wrk -c 64 -t 1 -d 5s http://127.0.0.1:38181/
set -euo pipefail
server=$1; shift
[[ $1 == -- ]] && shift
tick=$(getconf CLK_TCK)
cpu() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }  # utime+stime, ticks
out=$(mktemp); tm=$(mktemp)
trap 'rm -f "$out" "$tm"' EXIT
s0=$(cpu "$server")
/usr/bin/time -f '%U %S' -o "$tm" "$@" >"$out" 2>&1
s1=$(cpu "$server")
n=$(grep -oE '[0-9]+ requests in' "$out" | grep -oE '^[0-9]+')
read -r cu cs <"$tm"
awk -v n="$n" -v cu="$cu" -v cs="$cs" -v s="$((s1 - s0))" -v tick="$tick" -v cmd="$*" 'BEGIN {
  printf "requests %8d  client %5.2f us/req (%.2fs user %.2fs sys)  server %5.2f us/req  %s\n",
    n, (cu + cs) / n * 1e6, cu, cs, s / tick / n * 1e6, cmd }'
