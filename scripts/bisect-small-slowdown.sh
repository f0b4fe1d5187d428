#!/bin/bash
# Issue 31's measurement: crank bisect on a repository of COMMITS commits of a small Go HTTP app, the
# one numbered CULPRIT adding SPIN nanoseconds of CPU to every request (a few percent), or with
# WORK > 0 that many steps of arithmetic instead (a fixed count of instructions, as a code change
# adds; SPIN's loop watches the clock, so time the hypervisor steals from it is not spent). Searched
# once with --iterations auto at PRECISION (at most MAXIT iterations a commit), then TRIES times with
# the fewest iterations bisect takes (3 a commit: its test needs a spread), then SINGLE times as a
# person would by hand with one run a commit: each end once, then halving, a commit bad when its one
# figure is nearer the bad end's (on a ratio scale). AUTO=0 leaves out the first search.
# usage: [SPIN=600 | WORK=550] [COMMITS=8] [CULPRIT=5] [PRECISION=1%] [MAXIT=20] [TRIES=5] \
#        [SINGLE=5] [AUTO=1] [METRIC=...] [RATE=0] [DURATION=2] [WARMUP=1] [EXTRA="..."] [SIDE=0] [KEEP=0] \
#        scripts/bisect-small-slowdown.sh OUTDIR
# METRIC is bisect's --metric (default load:http/rps/mean; application:benchmarks/cpu/per-request
# judges the app's CPU per request). RATE > 0 loads the app at that many requests a second with the
# built-in generator instead of as fast as wrk can (then judge the CPU per request: requests/s is
# the rate). DURATION and WARMUP are each run's measured and warm-up seconds. EXTRA is added to
# every crank bisect (default: the app on CPU 0, the load on CPU 1). SIDE=1 runs the searches with
# --side-by-side (the commits of a round at once, each at RATE: judge the CPU per request). KEEP=1
# keeps the repository (its path is printed) to run crank bisect on it again by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:?usage: scripts/bisect-small-slowdown.sh OUTDIR}
spin=${SPIN:-600}
work=${WORK:-0}
if ((work > 0)); then spin=0; fi
commits=${COMMITS:-8}
culprit=${CULPRIT:-5}
precision=${PRECISION:-1%}
maxit=${MAXIT:-20}
tries=${TRIES:-5}
single=${SINGLE:-5}
auto=${AUTO:-1}
metric=${METRIC:-load:http/rps/mean}
rate=${RATE:-0}
duration=${DURATION:-2}
warmup=${WARMUP:-1}
load=wrk
if ((rate > 0)); then load=builtin; fi
read -r -a extra <<< "${EXTRA:---application.cpuSet 0 --load.cpuSet 1}"
side=()
if ((${SIDE:-0})); then side=(--side-by-side); fi
mkdir -p "$out"
repo=$(mktemp -d)
if ((${KEEP:-0})); then
  echo "repository: $repo (kept: KEEP=1; the scenario is $out/app.yml)"
else
  trap 'rm -rf "$repo"' EXIT
fi

app() { # $1: nanoseconds of CPU each request spins, $2: steps of arithmetic it does (0: none)
  cat <<EOF
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"
)

func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

var sink uint64

func work(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func main() {
	port := flag.String("port", "5000", "")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:"+*port)
	if err != nil {
		panic(err)
	}
	fmt.Println("Application started.")
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		spin($1 * time.Nanosecond)
		work($2)
		_, _ = w.Write([]byte("Hello, World!"))
	}))
}
EOF
}

git -C "$repo" init -q
printf 'module app\n\ngo 1.26\n' > "$repo/go.mod"
shas=()
for ((i = 1; i <= commits; i++)); do
  ns=0 steps=0
  subject="change $i"
  if ((i >= culprit)); then ns=$spin steps=$work; fi
  if ((i == culprit && work > 0)); then subject="${work} steps of arithmetic on every request"
  elif ((i == culprit)); then subject="spin ${spin} ns on every request"; fi
  app "$ns" "$steps" > "$repo/main.go"
  echo "$i" > "$repo/VERSION"
  git -C "$repo" add -A
  git -C "$repo" -c user.name=t -c user.email=t@example.com commit -q -m "$subject"
  shas+=("$(git -C "$repo" rev-parse HEAD)")
done

cat > "$out/app.yml" <<EOF
imports:
  - $root/scenarios/jobs/$load.yml
jobs:
  app:
    source:
      localFolder: $repo
    buildCommand: go build -o app .
    executable: ./app
    arguments: --port {{serverPort}}
    readyStateText: Application started.
    variables: {serverPort: 5000}
scenarios:
  app:
    application:
      job: app
    load:
      job: $load
EOF
rateflags=()
if ((rate > 0)); then rateflags=(--load.variables.rate "$rate"); fi
common=(bisect --config "$out/app.yml" --scenario app --good "${shas[0]}" --bad "${shas[$((commits - 1))]}"
  --metric "$metric" --variable duration="$duration" --variable warmup="$warmup" --variable connections=32 "${rateflags[@]}" "${extra[@]}" "${side[@]}")
echo "culprit: ${shas[$((culprit - 1))]} (commit $culprit of $commits, ${spin} ns spin, ${work} steps of work per request; load: $load, rate $rate)" | tee "$out/summary.txt"
uptime | tee -a "$out/summary.txt"
start=$(date +%s)
if ((auto)); then
  bin/crank "${common[@]}" --precision "$precision" --max-iterations "$maxit" --json "$out/auto.json" > "$out/auto.txt" 2>&1 || true
  echo "auto ($precision, at most $maxit iterations, $(( $(date +%s) - start )) s): $(grep -E 'first bad commit|no commit is worse|cannot tell' "$out/auto.txt" | tail -1)" | tee -a "$out/summary.txt"
fi
for ((k = 1; k <= tries; k++)); do
  bin/crank "${common[@]}" --precision "$precision" --max-iterations 3 > "$out/few$k.txt" 2>&1 || true
  echo "3 iterations, try $k: $(grep -E 'first bad commit|no commit is worse|cannot tell' "$out/few$k.txt" | tail -1)" | tee -a "$out/summary.txt"
done

once() { # $1: commit index; prints the metric of one run of it (the work tree checked out there)
  git -C "$repo" checkout -q "${shas[$1]}"
  local f=$out/single-$k-$1.json
  bin/crank --config "$out/app.yml" --scenario app --variable duration="$duration" --variable warmup="$warmup" \
    --variable connections=32 "${rateflags[@]}" "${extra[@]}" --json "$f" > "$f.txt" 2>&1
  python3 -c 'import json, sys
svc, name = sys.argv[2].split(":", 1)
print("%.4g" % json.load(open(sys.argv[1]))["jobResults"]["jobs"][svc]["results"][name])' "$f" "$metric"
}
for ((k = 1; k <= single; k++)); do
  lo=0 hi=$((commits - 1))
  good=$(once $lo) bad=$(once $hi)
  path="good $good, bad $bad ($(python3 -c 'import sys; print("%+.1f %%" % (100 * (float(sys.argv[2]) / float(sys.argv[1]) - 1)))' "$good" "$bad"))"
  while ((hi - lo > 1)); do
    mid=$(((lo + hi) / 2))
    v=$(once $mid)
    if python3 -c 'import math, sys; g, b, v = map(float, sys.argv[1:]); sys.exit(abs(math.log(v / b)) < abs(math.log(v / g)))' "$good" "$bad" "$v"; then
      lo=$mid path+=", commit $((mid + 1)) $v: good"
    else
      hi=$mid path+=", commit $((mid + 1)) $v: bad"
    fi
  done
  verdict=wrong
  if ((hi == culprit - 1)); then verdict=right; fi
  echo "1 run a commit, try $k: $path; first bad: commit $((hi + 1)) ($verdict)" | tee -a "$out/summary.txt"
done
uptime | tee -a "$out/summary.txt"
