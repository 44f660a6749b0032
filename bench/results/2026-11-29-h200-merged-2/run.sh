#!/bin/bash
# The merged tree on the H200 (complex signals, NR decoders, checked section hand-back in one
# launch): every self-check, the GPU test binaries (recurrence planner and complex data, LDPC
# GPU decoders and chain), the Python GPU suite, the filter accuracy sweep on CUDA arrays and
# the CLI on the GPU, the filter gradients' targets, complex64 throughput.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-*
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
mkdir -p $OUT/sweep
step "grad targets"; timeout 100 python3 python/bench/gpu_grad_targets.py --runs 10 > $OUT/grad-targets.json 2> $OUT/grad-targets.err; echo rc=$?; tail -c 2500 $OUT/grad-targets.json; tail -n 3 $OUT/grad-targets.err
step "complex64"; timeout 60 python3 bench/peers/complex_gpu.py --log2-n 28 > $OUT/complex-gpu.json 2>&1; echo rc=$?; cat $OUT/complex-gpu.json | tail -n 20
step "checks, GPU tests, sweep and pytest (parallel)"
(timeout 150 $S --json check --device cuda --seed 2 > $OUT/check-2.json
python3 -c "import json,os; d=json.load(open(os.environ['OUT']+'/check-2.json')); print(d['passed'],'passed',d['failed'],'failed',[(o['name'],str(o.get('report') or o.get('error'))[:300]) for o in d['checks'] if not o['passed']])"
echo "-- NR adaptive rule on the GPU: refused with the way out"
timeout 30 $S ldpc simulate --code nr:k=1000,n=3000 --device cuda --decoder aoms --eb-n0 1 --max-frames 10; echo rc=$?
for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 timeout 120 $t 2>&1 | grep -E "test result|FAILED|panicked" | head -6; done
) > $OUT/checks-tests.txt 2>&1 &
for s in 41 42 43 44 45; do
  (timeout 360 python3 bench/peers/filter_accuracy.py --face torch --face cupy --designs 12 --stopband 44 --max-len 70001 --seed $s --json $OUT/sweep/gpu-$s.json > $OUT/sweep/gpu-$s.txt 2>&1) &
done
(timeout 360 python3 bench/peers/filter_accuracy.py --face cli --sigpu $S --cli-device cuda --designs 12 --stopband 44 --max-len 70001 --seed 46 --json $OUT/sweep/cli-cuda-46.json > $OUT/sweep/cli-cuda-46.txt 2>&1) &
(SIGPU_REQUIRE_GPU=1 timeout 360 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $OUT/pytest.txt 2>&1) &
wait
cat $OUT/checks-tests.txt
grep -E "passed|failed" $OUT/pytest.txt | tail -3; grep -E "^FAILED|Error" $OUT/pytest.txt | head -10
python3 - <<'PY'
import json,glob,os
out=os.environ['OUT']; tot=miss=viol=chk=0
for f in sorted(glob.glob(f'{out}/sweep/*.json')):
    d=json.load(open(f))
    for face,c in d['faces'].items(): tot+=c.get('runs',0); miss+=c.get('contract_misses',0); viol+=c.get('bound_violations',0); chk+=c.get('bound_checked',0)
    for r in d['rows']:
        if not r['ok'] or r.get('bound_ok') is False: print('MISS' if not r['ok'] else 'BOUND', f[-14:], r)
print('sweep total runs', tot, 'misses', miss, 'bound violations', viol, 'of', chk)
PY
tar czf $OUT/sweep.tgz -C $OUT sweep && rm -rf $OUT/sweep
