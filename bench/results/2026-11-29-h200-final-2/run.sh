#!/bin/bash
# The final tree on the H200: every self-check (the planned stopband check now judged against
# the design), the recurrence checks at more seeds, and the CLI's filter accuracy sweep on the
# GPU at the seed of the previous run's bound violations and two more, and the three kernels from
# outside the SFU suite tuned from the CLI and from Python.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-*
step() { echo; echo "== $1 ($(date +%T))"; }
mkdir -p $OUT/sweep
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null
step "user kernels"; PYTHONPATH=/tmp/site SIGPU=$S LOG2N=23 timeout 200 bash bench/approx/tune_user_kernels.sh $OUT/user > $OUT/user-kernels.txt 2>&1; echo rc=$?; tail -n 25 $OUT/user-kernels.txt; rm -f $OUT/user/*.npy; tar czf $OUT/user.tgz -C $OUT user && rm -rf $OUT/user
for s in 46 47 48; do
  (timeout 300 python3 bench/peers/filter_accuracy.py --face cli --sigpu $S --cli-device cuda --designs 12 --stopband 44 --max-len 70001 --seed $s --json $OUT/sweep/cli-cuda-$s.json > $OUT/sweep/cli-cuda-$s.txt 2>&1) &
done
step checks
timeout 150 $S --json check --device cuda --seed 3 > $OUT/check-3.json
for s in 4 5; do timeout 100 $S --json check --device cuda --seed $s --crate recurrence > $OUT/check-rec-$s.json; done
python3 -c "import json,glob,os; [print(os.path.basename(f), (d:=json.load(open(f)))['passed'],'passed',d['failed'],'failed',[(o['name'],str(o.get('report') or o.get('error'))[:300]) for o in d['checks'] if not o['passed']]) for f in sorted(glob.glob(os.environ['OUT']+'/check-*.json'))]"
step "planner gpu tests"; SIGPU_REQUIRE_GPU=1 .gpu/test-planner 2>&1 | grep -E "test result|FAILED|panicked" | head -6
wait
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
