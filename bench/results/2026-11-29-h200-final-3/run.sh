#!/bin/bash
# The pole cascade with zi on the CPU engine: the CLI's accuracy sweep on the GPU at the seed of
# the ellip(8) high-pass case and one more.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
mkdir -p $OUT/sweep
for s in 47 49; do
  (timeout 200 python3 bench/peers/filter_accuracy.py --face cli --sigpu $S --cli-device cuda --designs 12 --stopband 44 --max-len 70001 --seed $s --json $OUT/sweep/cli-cuda-$s.json > $OUT/sweep/cli-cuda-$s.txt 2>&1) &
done
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
