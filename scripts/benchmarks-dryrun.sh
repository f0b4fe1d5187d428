#!/usr/bin/env bash
# Counts how many of aspnet/Benchmarks' scenarios `crank --dry-run` resolves, with the files'
# http imports pointed at local copies (no network). Needs git mirrors of dotnet/crank and
# aspnet/Benchmarks, python3 with PyYAML (to list scenario names) and a built bin/crank.
#   scripts/benchmarks-dryrun.sh BENCHMARKS_GIT_DIR CRANK_GIT_DIR [CRANK_BINARY [GRPC_DOTNET_GIT_DIR]]
# grpc.benchmarks.yml also imports three job files of grpc/grpc-dotnet (perf/benchmarkapps/*/*.yml):
# with a git mirror of grpc/grpc-dotnet (GRPC_DOTNET_GIT_DIR, or the environment's GRPC_DOTNET_GIT)
# they are read from it; without one its 12 scenarios count as "offline".
# Prints the count resolved, then the others by class (see below), the "other" ones listed.
set -euo pipefail
bench_git=${1:?Benchmarks git dir}
crank_git=${2:?crank git dir}
crank=${3:-bin/crank}
crank=$(realpath "$crank")
grpc_git=${4:-${GRPC_DOTNET_GIT:-}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'echo "benchmarks-dryrun.sh: failed at line $LINENO" >&2' ERR

# Every .yml file of both repositories (one by one: a mirror may lack large blobs).
copy_yml() { # git dir, destination
  git --git-dir="$1" ls-tree -r --name-only HEAD | grep '\.yml$' | while IFS= read -r p; do
    mkdir -p "$2/$(dirname "$p")"
    git --git-dir="$1" show "HEAD:$p" >"$2/$p"
  done
}
copy_yml "$bench_git" "$tmp/benchmarks"
copy_yml "$crank_git" "$tmp/crank"
if [ -n "$grpc_git" ]; then
  copy_yml "$grpc_git" "$tmp/grpc-dotnet"
fi
# Imports: the raw GitHub URLs of the repositories, as local paths.
local_imports=(-e "s#^(\s*-\s*)https://raw.githubusercontent.com/dotnet/crank/main/#\1$tmp/crank/#I"
  -e "s#^(\s*-\s*)https://raw.githubusercontent.com/aspnet/Benchmarks/main/#\1$tmp/benchmarks/#I")
if [ -n "$grpc_git" ]; then
  local_imports+=(-e "s#^(\s*-\s*)https://raw.githubusercontent.com/grpc/grpc-dotnet/master/#\1$tmp/grpc-dotnet/#I")
fi
find "$tmp" -name '*.yml' -print0 | xargs -0 sed -i -E "${local_imports[@]}"

# A scenario that does not resolve is put in one class, by all its error lines:
#   dotnet-docker  every error is a refusal of a .NET build (source.project, benchmarkDotNet) or of a
#                  Docker job or its limits (docker*, buildArguments, noClean, cpuSet, memoryLimitInBytes,
#                  cpuLimitRatio: pending the Docker runtime)
#   offline        an import from a repository with no local copy here
#   other          anything else: these are the gaps to close
dotnet_docker="crank.s (source\\.project|options\\.benchmarkDotNet|source\\.docker[A-Za-z]*|docker[A-Za-z]*|buildArguments|noClean|cpuSet|memoryLimitInBytes|cpuLimitRatio) is not supported"
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
      continue
    fi
    errs=$(printf '%s\n' "$err" | grep -v -e '^\s*$' -e '^crank: warning:' -e '^crank: note:' | sed -E "s#$tmp/##g")
    # here-strings, not pipes into grep -q or head: an early exit would be a SIGPIPE under pipefail
    others=$(grep -v -E "$dotnet_docker" <<<"$errs" || true)
    if grep -q 'import .*no such host' <<<"$errs"; then
      class=offline
    elif [ -z "$others" ]; then
      class=dotnet-docker
    else
      class=other
    fi
    first=$(head -n 1 <<<"$others")
    [ "$class" = offline ] && first=$(grep -o -m1 'import [^ ]*' <<<"$errs" || true)
    [ -z "$first" ] && first=$(head -n 1 <<<"$errs")
    printf '%s\t%s\t%s\t%s\n' "$class" "$(basename "$f")" "$s" "$first" >>"$tmp/failures"
  done <<<"$names"
done
echo "resolved: $ok of $total scenarios"
for class in dotnet-docker offline other; do
  echo "$class: $(grep -c "^$class	" "$tmp/failures" || true)"
done
echo
echo "dotnet-docker (file, scenario, the first refusal):"
grep "^dotnet-docker	" "$tmp/failures" | cut -f2- || true
echo
echo "offline (file, scenario, the import with no local copy):"
grep "^offline	" "$tmp/failures" | cut -f2- || true
echo
echo "other (file, scenario, first error that is not a .NET or Docker refusal):"
grep "^other	" "$tmp/failures" | cut -f2- || true
echo
echo "other, by error (file positions and names removed):"
grep "^other	" "$tmp/failures" | cut -f4 | sed -E -e 's/^crank: //' -e 's/^[^ ]+:[0-9]+: //' \
  -e 's/scenario "[^"]*": service "[^"]*": //' | sort | uniq -c | sort -rn || true
