#!/usr/bin/env bash
# summarize.sh < compare.sh-output
#
# Prints, per generator and mode, the median client CPU per request, the median server CPU per
# request and the median request count of the runs compare.sh printed.
awk '
function median(list,   n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/requests/ {
  tool = ($0 ~ /wrk /) ? "wrk" : "builtin"
  mode = ($0 ~ /-p 16| -s /) ? "pipelined 16" : "unpipelined"
  k = tool " " mode
  match($0, /requests +[0-9]+/); n = substr($0, RSTART, RLENGTH); sub(/requests +/, "", n)
  match($0, /client +[0-9.]+/); c = substr($0, RSTART, RLENGTH); sub(/client +/, "", c)
  match($0, /server +[0-9.]+/); s = substr($0, RSTART, RLENGTH); sub(/server +/, "", s)
  cl[k] = cl[k] " " c; sv[k] = sv[k] " " s; rq[k] = rq[k] " " n; runs[k]++
}
END {
  printf "%-26s %5s %14s %14s %12s\n", "generator, mode", "runs", "client us/req", "server us/req", "requests"
  for (k in runs) printf "%-26s %5d %14.2f %14.2f %12d\n", k, runs[k], median(cl[k]), median(sv[k]), median(rq[k]) | "sort"
}'
