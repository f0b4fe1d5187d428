#!/usr/bin/env bash
# Counts how many of aspnet/Benchmarks' scenarios `crank --dry-run` resolves, with the files'
# http imports pointed at local copies (no network). Needs git mirrors of dotnet/crank and
# aspnet/Benchmarks, python3 with PyYAML (to list scenario names) and a built bin/crank.
#   scripts/benchmarks-dryrun.sh BENCHMARKS_GIT_DIR CRANK_GIT_DIR [CRANK_BINARY]
# Prints one line per scenario that does not resolve (file, scenario, first error line), then the
# count, and the failures grouped by their first error line.
set -euo pipefail
bench_git=${1:?Benchmarks git dir}
crank_git=${2:?crank git dir}
crank=${3:-bin/crank}
crank=$(realpath "$crank")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every .yml file of both repositories (one by one: a mirror may lack large blobs).
copy_yml() { # git dir, destination
  git --git-dir="$1" ls-tree -r --name-only HEAD | grep '\.yml$' | while IFS= read -r p; do
    mkdir -p "$2/$(dirname "$p")"
    git --git-dir="$1" show "HEAD:$p" >"$2/$p"
  done
}
copy_yml "$bench_git" "$tmp/benchmarks"
copy_yml "$crank_git" "$tmp/crank"
# Imports: the raw GitHub URLs of both repositories, as local paths.
find "$tmp" -name '*.yml' -print0 | xargs -0 sed -i -E \
  -e "s#^(\s*-\s*)https://raw.githubusercontent.com/dotnet/crank/main/#\1$tmp/crank/#I" \
  -e "s#^(\s*-\s*)https://raw.githubusercontent.com/aspnet/Benchmarks/main/#\1$tmp/benchmarks/#I"

total=0 ok=0
: >"$tmp/failures"
for f in "$tmp"/benchmarks/scenarios/*.yml; do
  names=$(python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1], encoding="utf-8-sig")) or {}
print("\n".join((d.get("scenarios") or {}).keys()))' "$f")
  [ -z "$names" ] && continue
  while IFS= read -r s; do
    total=$((total + 1))
    if err=$("$crank" --config "$f" --scenario "$s" --dry-run /dev/null 2>&1 >/dev/null); then
      ok=$((ok + 1))
    else
      first=$(printf '%s\n' "$err" | grep -v '^\s*$' | head -1 | sed -E "s#$tmp/##g")
      printf '%s\t%s\t%s\n' "$(basename "$f")" "$s" "$first" | tee -a "$tmp/failures"
    fi
  done <<<"$names"
done
echo
echo "resolved: $ok of $total scenarios"
echo "failures by first error (key and message, lines and names removed):"
cut -f3 "$tmp/failures" | sed -E -e 's/^crank: //' -e 's/^[^ ]+:[0-9]+: //' -e 's/scenario "[^"]*": service "[^"]*": //' \
  -e 's/\(ln [0-9]+\)//' | sort | uniq -c | sort -rn
