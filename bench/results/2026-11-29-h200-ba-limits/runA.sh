#!/bin/bash
# GPU planner limits for blocked (b, a): tests, calibration on the new tree, accuracy sweep.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 SIGPU_REQUIRE_GPU=1
rm -rf /tmp/site && mkdir -p /tmp/site && python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site
export PYTHONPATH=/tmp/site
cp .gpu/plr_gpu_calibration.py bench/peers/ 2>/dev/null
for t in .gpu/test-*; do echo "== $t"; $t 2>&1 | grep -E "test result|FAILED|panicked|error" | head -10; done
mkdir -p $OUT/sweep $OUT/calib
(timeout 420 python3 bench/peers/plr_gpu_calibration.py --seed 3 > $OUT/calib/gpu-3.jsonl 2>$OUT/calib/gpu-3.err) &
for s in 11 12 13 14 15; do
  (timeout 480 python3 bench/peers/filter_accuracy.py --face torch --face cupy --designs 12 --stopband 44 --max-len 100003 --seed $s --json $OUT/sweep/gpu-$s.json > $OUT/sweep/gpu-$s.txt 2>&1) &
done
wait
python3 - <<'PY'
import json,glob,os
out=os.environ['OUT']
rs=[json.loads(l) for l in open(f'{out}/calib/gpu-3.jsonl')]
bad=[r for r in rs if r['ratio'] and r['ratio']>4]
print('calibration', len(rs), 'runs,', len(bad), 'over 4x; worst', max(r['ratio'] or 0 for r in rs))
for r in bad[:10]: print('  ', r)
tot=miss=0
for f in sorted(glob.glob(f'{out}/sweep/gpu-*.json')):
    d=json.load(open(f))
    for face,c in d['faces'].items():
        tot+=c.get('runs',0); miss+=c.get('contract_misses',0)
        print(f, face, c)
print('sweep total runs', tot, 'misses', miss)
PY
tail -n 3 $OUT/sweep/gpu-*.txt
cd python && timeout 300 python3 -m pytest -q -x tests/test_gpu.py tests/test_filters.py 2>&1 | tail -5
