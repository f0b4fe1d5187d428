#!/bin/sh
# building.sh WHAT COMMAND...: runs COMMAND (a build), saying first what it builds and then every
# 5 s that it is still building and for how long, so a first build (module downloads and an empty
# Go build cache: a minute or two) is never silent. Exits with COMMAND's status.
set -u
what=$1
shift
start=$(date +%s)
echo "building $what (the first build downloads the modules and compiles everything: a minute or two; later builds take seconds)"
(
	while sleep 5 >/dev/null 2>&1; do
		echo "  still building $what ($(($(date +%s) - start))s)"
	done
) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
"$@"
rc=$?
kill "$ticker" 2>/dev/null
if [ "$rc" -eq 0 ]; then
	echo "built $what in $(($(date +%s) - start))s"
else
	echo "building $what failed (exit $rc)" >&2
fi
exit "$rc"
