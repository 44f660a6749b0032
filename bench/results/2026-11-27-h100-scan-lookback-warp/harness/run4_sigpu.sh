#!/bin/bash
# Device call 4: the release sigpu built from this branch: the recurrence self-checks, and
# `sigpu bench filter` on prefix sums (default shape vs 256x32 without the look-back warp).
set -u
cd "$(dirname "$0")/.."
S=.gpu-scan-reduce-fast/sigpu
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
SECONDS=0
{
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
timeout 100 $S --json check --device cuda --filter recurrence > $R/check.json 2> $R/check.err; echo "check rc $? after ${SECONDS} s"
for t in i32 f32; do
timeout 60 $S --json bench filter --device cuda --signature "(1 : 1)" --dtype $t --log2-n 28,30 --check-up-to 28 --shapes default,256x32n > $R/bench_$t.json 2> $R/bench_$t.err; echo "bench $t rc $? after ${SECONDS} s"
done
} > $R/log.txt 2>&1
cat $R/log.txt; python3 - <<'PY'
import json,os
R=os.environ['OUT']+'/r'
try:
    d=json.load(open(R+'/check.json'))
    rows=d if isinstance(d,list) else d.get('checks',d.get('results',[]))
    print('checks:', [(r.get('name'), r.get('passed', r.get('ok', r.get('status')))) for r in rows])
except Exception as e: print('check parse', e); print(open(R+'/check.json').read()[:3000])
for t in ('i32','f32'):
    try:
        d=json.load(open(R+f'/bench_{t}.json'))
        for r in d.get('rows',[]): print(t, {k: r.get(k) for k in ('signature','dtype','n','shape','gelem_per_s','percent_of_copy','error','error_kind','median_ms')})
        print(t, {k:v for k,v in d.items() if k!='rows'})
    except Exception as e: print('bench parse', t, e); print(open(R+f'/bench_{t}.json').read()[:2000]); print(open(R+f'/bench_{t}.err').read()[-1500:])
PY
