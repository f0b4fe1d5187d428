#!/usr/bin/env bash
# `make measure`: the tests whose outcome depends on the machine's speed (a req/s band, a CPU share,
# a latency bound, a capacity or bisect search, a verdict read from measured figures). They live in
# files tagged `//go:build measure`, so `make test` (the merge gate) does not build them; this runs
# exactly those tests: for each package holding such a file, the tests `go test -tags measure -list`
# finds that the untagged build does not. Packages run one after another and their tests one at a
# time (-p 1, -parallel 1): a measurement must not share the machine with another one.
# Run it on a quiet machine; CI=true makes a missing component fail, as in `make test`.
# Usage: scripts/measure.sh [go test flags...]   (e.g. -v; -run is refused: the tests are computed)
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
for a in "$@"; do
  case "$a" in
    -run|-run=*|--run|--run=*|-test.run*)
      echo "measure: $a: the tests to run are the measuring ones, computed here; run one with go test -tags measure -run NAME ./pkg" >&2
      exit 2 ;;
  esac
done

pkgs=$(grep -rl --include='*_test.go' '^//go:build measure$' . | xargs -r -n1 dirname | sort -u)
if [ -z "$pkgs" ]; then
  echo "measure: no file is tagged //go:build measure" >&2
  exit 2
fi

rc=0
total=0
for dir in $pkgs; do
  # The tests of the tagged build that the gate's build lacks: the measuring ones.
  all=$($go test -tags measure -list '^Test' "$dir" | grep '^Test' | sort)
  gate=$($go test -list '^Test' "$dir" | grep '^Test' | sort)
  tests=$(comm -23 <(echo "$all") <(echo "$gate") | paste -sd'|' -)
  if [ -z "$tests" ]; then
    echo "measure: $dir has a file tagged measure but no test only that build has" >&2
    rc=2
    continue
  fi
  n=$(echo "$tests" | tr '|' '\n' | wc -l)
  total=$((total + n))
  echo "measure: $dir: $n tests"
  $go test -tags measure -count=1 -p 1 -parallel 1 -timeout 180m -run "^($tests)\$" "$@" "$dir" || rc=1
done
echo "measure: $total measuring tests, exit $rc"
exit "$rc"
