#!/bin/bash
# GPU: the checked pole cascade and the blocked (b, a) limits — tests, the accuracy sweep
# (torch and CuPy faces, 5 seeds), Python GPU tests; 5G NR LDPC against Sionna.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site && mkdir -p /tmp/site && python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site
export PYTHONPATH=/tmp/site
step tests
for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 $t 2>&1 | grep -E "test result|FAILED|panicked|error" | head -10; done
mkdir -p $OUT/sweep $OUT/calib $OUT/nr
step "sweep + calibration + python (parallel)"
(timeout 420 python3 bench/peers/plr_gpu_calibration.py --seed 3 > $OUT/calib/gpu-3.jsonl 2>$OUT/calib/gpu-3.err) &
for s in 11 12 13 14 15; do
  (timeout 480 python3 bench/peers/filter_accuracy.py --face torch --face cupy --designs 12 --stopband 44 --max-len 100003 --seed $s --json $OUT/sweep/gpu-$s.json > $OUT/sweep/gpu-$s.txt 2>&1) &
done
(SIGPU_REQUIRE_GPU=1 timeout 300 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_filters.py > $OUT/pytest.txt 2>&1) &
wait
tail -n 4 $OUT/pytest.txt
python3 - <<'PY'
import json,glob,os
out=os.environ['OUT']
rs=[json.loads(l) for l in open(f'{out}/calib/gpu-3.jsonl')]
bad=[r for r in rs if r['ratio'] and r['ratio']>4]
print('calibration', len(rs), 'runs,', len(bad), 'over 4x, refused', sum(r['ratio'] is None for r in rs), 'worst', max(r['ratio'] or 0 for r in rs))
for r in bad[:8]: print('  ', r)
tot=miss=0
for f in sorted(glob.glob(f'{out}/sweep/gpu-*.json')):
    d=json.load(open(f))
    for face,c in d['faces'].items():
        tot+=c.get('runs',0); miss+=c.get('contract_misses',0)
    for r in d['rows']:
        if not r['ok']: print('MISS', r)
print('sweep total runs', tot, 'misses', miss)
PY
step "nr ldpc vs sionna"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/sio .whl/*.whl >/dev/null 2>&1
PYTHONPATH=/tmp/site:/tmp/sio timeout 240 python3 bench/peers/nr_ldpc_sionna.py --frames 2000 > $OUT/nr/sionna.jsonl 2> $OUT/nr/sionna.err
tail -n 12 $OUT/nr/sionna.jsonl; tail -n 3 $OUT/nr/sionna.err
