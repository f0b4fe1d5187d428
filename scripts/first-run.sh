#!/bin/bash
# Measures README's first command as a new user meets it: a fresh clone of this checkout's HEAD,
# empty Go module and build caches and an empty crank cache, every output line timestamped; prints
# the total time and the longest silence. usage: scripts/first-run.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
mkdir -p "$work/home"
export GOMODCACHE=$work/gomod GOCACHE=$work/gocache XDG_CACHE_HOME=$work/xdg HOME=$work/home
cd "$work/clone"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
(make build && bin/crank --config scenarios/plaintext.yml --scenario plaintext) 2>&1 |
  while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done > "$work/log"
end=$(date +%s.%N)
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v start="$start" -v end="$end" '
  { t = $1; if (t - prev > gap) gap = t - prev; prev = t }
  BEGIN { prev = start }
  END { if (end - prev > gap) gap = end - prev; printf "total %.1f s, longest silence %.1f s, %d lines\n", end - start, gap, NR }
' "$work/log"
