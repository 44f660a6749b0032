#!/usr/bin/env bash
# Device call 3: the sections after the serial hand-back; seeds of the recurrence checks; a GPU
# accuracy sweep through torch; the section kernels' speed.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/sigpu-old
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
step checks
for s in 1 2 3 4 5 6; do timeout 60 $S --json check --device cuda --seed $s --crate recurrence > $OUT/check-$s.json; done
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob(os.environ['OUT'] + '/check-*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), d['passed'], 'passed', d['failed'], 'failed', [(o['name'], str(o.get('report') or o.get('error'))[:300]) for o in d['checks'] if not o['passed']])
PY
for b in sigpu-old sigpu; do step "bench sos $b"; timeout 40 .gpu/$b bench filter --device cuda --sos --log2-n 26,28 --runs 20 2>&1 | tail -3; done
step "accuracy sweep, torch (small)"; timeout 200 python3 bench/peers/filter_accuracy.py --face torch --face cupy --designs 6 --stopband 30 --max-len 100003 --seed 4 --json $OUT/acc-torch.json 2>&1 | tail -8
true
