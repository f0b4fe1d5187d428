#!/bin/bash
# Issue 24 acceptance: a sweep's CPU per request and single runs of the same variant agree within 10%.
# usage: [N=5] [EXTRA="--application.cpuSet 0 --load.job builtin --load.cpuSet 1"] scripts/sweep-vs-single.sh TAG
# N is the number of iterations of the sweep and of single runs alike (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:?usage: scripts/sweep-vs-single.sh TAG}
n=${N:-5}
out=${OUT:-/tmp/sweep-vs-single}/$tag
mkdir -p "$out"
read -r -a common <<< "--config scenarios/plaintext.yml --scenario plaintext --variable duration=5 --variable warmup=2 ${EXTRA:-}"
uptime | tee "$out/uptime-before.txt"
bin/crank sweep "${common[@]}" --matrix connections=32,64 --iterations "$n" --json "$out/sweep.json" > "$out/sweep.txt" 2>&1
for ((i = 1; i <= n; i++)); do
  bin/crank "${common[@]}" --variable connections=32 --json "$out/single$i.json" > "$out/single$i.txt" 2>&1
done
uptime | tee "$out/uptime-after.txt"
python3 - "$out" "$n" <<'PY'
import json,sys,statistics
d=sys.argv[1]
sw=json.load(open(d+'/sweep.json'))
for v in sw['variants']:
    if v['name']=='connections=32':
        jr=v['result']['jobResults']['jobs']['application']
        its=[it['benchmarks/cpu/per-request'] for it in jr['iterations'] if 'benchmarks/cpu/per-request' in it]
        sweep=statistics.mean(its)
singles=[]
for i in range(1,int(sys.argv[2])+1):
    r=json.load(open(f'{d}/single{i}.json'))
    singles.append(r['jobResults']['jobs']['application']['results']['benchmarks/cpu/per-request'])
single=statistics.mean(singles)
print(f"sweep connections=32 CPU per request: {sweep:.3f} µs (iterations {['%.3f'%x for x in its]})")
print(f"single runs connections=32: {single:.3f} µs ({['%.3f'%x for x in singles]})")
spread=statistics.stdev(its+singles)/statistics.mean(its+singles) if len(its+singles)>2 else 0
print(f"difference: {100*(sweep/single-1):+.1f} % (run-to-run spread of one run: {100*spread:.1f} %)")
PY
