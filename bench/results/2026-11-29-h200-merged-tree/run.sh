#!/bin/bash
# The merged tree on the H200: LNS row / matmul kernels, filter gradients, self-checks,
# Python GPU suite, and the filter accuracy sweep on CUDA arrays.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
mkdir -p $OUT/sweep
step "lns bench"; timeout 110 python3 bench/peers/lns_tensor_bench.py > $OUT/lns_tensor_bench.txt 2>&1; echo rc=$?; tail -n 40 $OUT/lns_tensor_bench.txt
step "grad bench"; timeout 120 python3 python/bench/gpu_grad_targets.py --runs 10 > $OUT/grad-targets.json 2> $OUT/grad-targets.err; echo rc=$?; tail -c 3000 $OUT/grad-targets.json; tail -n 5 $OUT/grad-targets.err
step "rust gpu tests"; for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 $t 2>&1 | grep -E "test result|FAILED|panicked" | head -6; done
step "sweep + pytest (parallel)"
for s in 21 22 23 24 25; do
  (timeout 420 python3 bench/peers/filter_accuracy.py --face torch --face cupy --designs 12 --stopband 44 --max-len 100003 --seed $s --json $OUT/sweep/gpu-$s.json > $OUT/sweep/gpu-$s.txt 2>&1) &
done
(SIGPU_REQUIRE_GPU=1 timeout 400 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $OUT/pytest.txt 2>&1) &
wait
grep -E "passed|failed" $OUT/pytest.txt | tail -3; grep -E "^FAILED|Error" $OUT/pytest.txt | head -10
python3 - <<'PY'
import json,glob,os
out=os.environ['OUT']; tot=miss=0
for f in sorted(glob.glob(f'{out}/sweep/gpu-*.json')):
    d=json.load(open(f))
    for face,c in d['faces'].items(): tot+=c.get('runs',0); miss+=c.get('contract_misses',0)
    for r in d['rows']:
        if not r['ok']: print('MISS', r)
print('sweep total runs', tot, 'misses', miss)
PY
tar czf $OUT/sweep.tgz -C $OUT sweep && rm -rf $OUT/sweep
