#!/bin/bash
# Issue 29 acceptance: the plaintext app's capacity (crank capacity, the built-in generator open-loop)
# and the requests/s of the reference closed-loop run agree within 15 %.
# usage: [N=1] [SLO='load:http/latency/99<10'] [EXTRA=...] scripts/capacity-vs-closed.sh TAG
# The reference is the same scenario with the same generator, connections and pipelining, closed loop:
#   bin/crank --config scenarios/plaintext.yml --scenario plaintext --load.job builtin (rate 0)
# i.e. crank load -c 32 -t 1 -p 16 (scenarios/jobs/builtin.yml, scenarios/plaintext.yml), 5 s measured
# after a 2 s warm-up. The search starts at half the closed loop's requests/s, so that it doubles
# past it once and then bisects to --precision 5 %. N pairs are run, alternating (default 1).
# Run on a quiet machine: the load and the app share its cores (docs/CAPACITY.md#limits).
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:?usage: scripts/capacity-vs-closed.sh TAG}
n=${N:-1}
slo=${SLO:-load:http/latency/99<10}
out=${OUT:-/tmp/capacity-vs-closed}/$tag
mkdir -p "$out"
read -r -a common <<< "--config scenarios/plaintext.yml --scenario plaintext --load.job builtin ${EXTRA:-}"
uptime | tee "$out/uptime-before.txt"
for ((i = 1; i <= n; i++)); do
  bin/crank "${common[@]}" --variable duration=5 --variable warmup=2 --variable rate=0 --json "$out/closed$i.json" > "$out/closed$i.txt" 2>&1
  start=$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['jobResults']['jobs']['load']['results']['http/rps/mean']/2))" "$out/closed$i.json")
  code=0
  bin/crank capacity "${common[@]}" --slo "$slo" --slo 'load:http/requests/error-rate<0.1' --start-rate "$start" \
    --max-steps 14 --json "$out/capacity$i.json" > "$out/capacity$i.txt" 2>&1 || code=$?
  echo "pair $i: closed loop done, capacity search exit $code (from $start req/s)"
done
uptime | tee "$out/uptime-after.txt"
python3 - "$out" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(1, n + 1):
    closed = json.load(open(f'{d}/closed{i}.json'))['jobResults']['jobs']['load']['results']['http/rps/mean']
    cap = json.load(open(f'{d}/capacity{i}.json'))['capacity']
    rate, failed = cap.get('rate', 0), cap.get('failedAt', 0)
    ratio = rate / closed if closed else float('nan')
    verdict = 'within 15 %' if abs(ratio - 1) <= 0.15 else 'NOT within 15 %'
    print(f"pair {i}: closed loop {closed:,.0f} req/s; capacity {rate:,.0f} req/s (failed at {failed:,.0f}: "
          f"{'; '.join(cap.get('failedSlo') or ['-'])}); ratio {ratio:.3f}: {verdict}")
    print(f"  at the knee: {cap.get('verdictKind') or '-'}")
    steal = max((j['results'].get('benchmarks/cpu/steal', 0) for j in json.load(open(f'{d}/closed{i}.json'))['jobResults']['jobs'].values()), default=0)
    steps = cap.get('steps') or []
    print(f"  steal (benchmarks/cpu/steal): closed loop {steal:.1f} %, capacity steps up to {max((x.get('steal', 0) for x in steps), default=0):.1f} %"
          f" ({sum(1 for x in steps if x.get('stolen'))} of {len(steps)} steps stolen)")
PY
