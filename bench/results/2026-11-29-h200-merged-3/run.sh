#!/bin/bash
# The merged tree on the H200: first the timings alone (the 5G NR GPU decoder's bench rows; the
# time-varying all-pole filter against torchlpc, built here from its sdist with nvcc), then in
# parallel: every self-check, the NR / LDPC / all-pole / planner GPU test binaries, the Python
# GPU suite, and the filter accuracy sweep (torch and CuPy seeds 56-60, the CLI on the GPU
# seeds 47-48).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-*
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
(MAX_JOBS=8 timeout 300 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/tl .whl/torchlpc-0.7.2.tar.gz > $OUT/torchlpc-build.txt 2>&1; echo rc=$? >> $OUT/torchlpc-build.txt) &
TL=$!
step "NR GPU decoder bench"
timeout 150 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5,20 --runs 20 --json --out $OUT/bench_nr.json > $OUT/bench_nr.txt 2>&1; echo rc=$?
python3 - <<'PY'
import json,os
d=json.load(open(os.environ['OUT']+'/bench_nr.json'))
for r in d.get('nr_gpu',[]): print({k:r[k] for k in r if not isinstance(r[k],(list,dict))})
PY
tail -n 30 $OUT/bench_nr.txt
wait $TL; tail -n 3 $OUT/torchlpc-build.txt
step "all-pole vs torchlpc"
PYTHONPATH=/tmp/site:/tmp/tl timeout 120 python3 bench/peers/allpole_torchlpc.py 64 65536 16 20 > $OUT/allpole.json 2> $OUT/allpole.err; echo rc=$?; cat $OUT/allpole.json; tail -n 5 $OUT/allpole.err
mkdir -p $OUT/sweep
step "checks, GPU tests, sweep and pytest (parallel)"
(timeout 240 $S --json check --device cuda --seed 8 > $OUT/check-8.json
python3 -c "import json,os; d=json.load(open(os.environ['OUT']+'/check-8.json')); print(d['passed'],'passed',d['failed'],'failed',[(o['name'],str(o.get('report') or o.get('error'))[:400]) for o in d['checks'] if not o['passed']]); print([(o['name'],(o.get('report') or {}).get('note')) for o in d['checks'] if 'nr_' in o['name'] or 'allpole' in o['name'] or 'zi_tr' in o['name']])"
for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 timeout 150 $t --nocapture 2>&1 | grep -E "test result|FAILED|panicked|error|y error|note" | head -12; done
) > $OUT/checks-tests.txt 2>&1 &
for s in 56 57 58 59 60; do
  (timeout 330 python3 bench/peers/filter_accuracy.py --face torch --face cupy --designs 12 --stopband 44 --max-len 70001 --seed $s --json $OUT/sweep/gpu-$s.json > $OUT/sweep/gpu-$s.txt 2>&1) &
done
for s in 47 48; do
  (timeout 360 python3 bench/peers/filter_accuracy.py --face cli --sigpu $S --cli-device cuda --designs 12 --stopband 44 --max-len 70001 --seed $s --json $OUT/sweep/cli-cuda-$s.json > $OUT/sweep/cli-cuda-$s.txt 2>&1) &
done
(SIGPU_REQUIRE_GPU=1 PYTHONPATH=/tmp/site:/tmp/tl timeout 330 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $OUT/pytest.txt 2>&1) &
wait
cat $OUT/checks-tests.txt
grep -E "passed|failed" $OUT/pytest.txt | tail -3; grep -E "^FAILED|Error|allpole" $OUT/pytest.txt | head -12
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
ls $OUT/sweep | wc -l
tar czf $OUT/sweep.tgz -C $OUT sweep && rm -rf $OUT/sweep
