#!/bin/bash
# The H200 run of the tree whose blocked section runs are also judged on their corrections'
# average, with f32 signals filtered in f64 with the coefficients as given: every self-check,
# the GPU planner tests, the Python GPU suite, the filter accuracy sweep on CUDA arrays
# (torch, CuPy, the CLI on the GPU), the section kernel's throughput, and the SFU catalog.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-*
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
mkdir -p $OUT/sweep
step checks
timeout 150 $S --json check --device cuda --seed 1 > $OUT/check-1.json
python3 -c "import json,os; d=json.load(open(os.environ['OUT']+'/check-1.json')); print(d['passed'],'passed',d['failed'],'failed',[(o['name'],str(o.get('report') or o.get('error'))[:300]) for o in d['checks'] if not o['passed']])"
step "sosfilt throughput"
timeout 90 $S --json bench filter --device cuda --sos --log2-n 26,28 --runs 20 > $OUT/sosfilt-bench.json 2> $OUT/sosfilt-bench.err; echo rc=$?; tail -c 1500 $OUT/sosfilt-bench.json; tail -n 3 $OUT/sosfilt-bench.err
step "rust gpu tests"; for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 $t 2>&1 | grep -E "test result|FAILED|panicked" | head -6; done
step "sweep + pytest (parallel)"
for s in 31 32 33 34 35; do
  (timeout 420 python3 bench/peers/filter_accuracy.py --face torch --face cupy --designs 12 --stopband 44 --max-len 100003 --seed $s --json $OUT/sweep/gpu-$s.json > $OUT/sweep/gpu-$s.txt 2>&1) &
done
(timeout 420 python3 bench/peers/filter_accuracy.py --face cli --sigpu $S --cli-device cuda --designs 12 --stopband 44 --max-len 100003 --seed 36 --json $OUT/sweep/cli-cuda-36.json > $OUT/sweep/cli-cuda-36.txt 2>&1) &
(SIGPU_REQUIRE_GPU=1 timeout 400 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $OUT/pytest.txt 2>&1) &
wait
grep -E "passed|failed" $OUT/pytest.txt | tail -3; grep -E "^FAILED|Error" $OUT/pytest.txt | head -10
python3 - <<'PY'
import json,glob,os
out=os.environ['OUT']; tot=miss=viol=0
for f in sorted(glob.glob(f'{out}/sweep/*.json')):
    d=json.load(open(f))
    for face,c in d['faces'].items(): tot+=c.get('runs',0); miss+=c.get('contract_misses',0); viol+=c.get('bound_violations',0)
    for r in d['rows']:
        if not r['ok'] or r.get('bound_ok') is False: print('MISS' if not r['ok'] else 'BOUND', f[-14:], r)
print('sweep total runs', tot, 'misses', miss, 'bound violations', viol)
PY
tar czf $OUT/sweep.tgz -C $OUT sweep && rm -rf $OUT/sweep
step "SFU catalog (approx bench) and the per-call-site search on the 12 applications"
mkdir -p $OUT/approx
timeout 120 $S --json approx bench --device cuda --out $OUT/approx/catalog.json > /dev/null 2> $OUT/approx/catalog.err; echo rc=$?; tail -n 3 $OUT/approx/catalog.err
timeout 200 $S approx tune --device cuda --app all --per-site --energy-seconds 0.1 --out $OUT/approx/per-site.json > $OUT/approx/per-site.txt 2>&1; echo rc=$?; tail -n 30 $OUT/approx/per-site.txt
tar czf $OUT/approx.tgz -C $OUT approx && rm -rf $OUT/approx
