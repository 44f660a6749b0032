#!/bin/bash
# The filter accuracy sweep on the H200 after the f64 PLR kernel's compensated recurrence:
# every self-check, the recurrence planner's GPU tests, the sweep on torch and CuPy CUDA arrays
# (seeds 51-55) and through the CLI on the GPU (seeds 46 and 47: the (b, a) PLR zi case and the
# pole cascade from zi that missed before), and the Python GPU suite, in parallel.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-*
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
mkdir -p $OUT/sweep
step "checks, GPU tests, sweep and pytest (parallel)"
(timeout 200 $S --json check --device cuda --seed 7 > $OUT/check-7.json
python3 -c "import json,os; d=json.load(open(os.environ['OUT']+'/check-7.json')); print(d['passed'],'passed',d['failed'],'failed',[(o['name'],str(o.get('report') or o.get('error'))[:300]) for o in d['checks'] if not o['passed']]); print([(o['name'],o.get('report')) for o in d['checks'] if 'zi_transient' in o['name']])"
for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 timeout 120 $t 2>&1 | grep -E "test result|FAILED|panicked" | head -6; done
) > $OUT/checks-tests.txt 2>&1 &
for s in 51 52 53 54 55; do
  (timeout 380 python3 bench/peers/filter_accuracy.py --face torch --face cupy --designs 12 --stopband 44 --max-len 70001 --seed $s --json $OUT/sweep/gpu-$s.json > $OUT/sweep/gpu-$s.txt 2>&1) &
done
for s in 46 47; do
  (timeout 420 python3 bench/peers/filter_accuracy.py --face cli --sigpu $S --cli-device cuda --designs 12 --stopband 44 --max-len 70001 --seed $s --json $OUT/sweep/cli-cuda-$s.json > $OUT/sweep/cli-cuda-$s.txt 2>&1) &
done
(SIGPU_REQUIRE_GPU=1 timeout 380 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $OUT/pytest.txt 2>&1) &
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
    print(f[-18:], {k:(c.get('runs'),c.get('contract_misses'),round(c.get('worst_ratio',0),2)) for k,c in d['faces'].items()})
print('sweep total runs', tot, 'misses', miss, 'bound violations', viol, 'of', chk)
PY
ls $OUT/sweep; tail -n 3 $OUT/sweep/*.txt | tail -40
tar czf $OUT/sweep.tgz -C $OUT sweep && rm -rf $OUT/sweep
