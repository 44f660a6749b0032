#!/usr/bin/env bash
# Device call 2: the merged tree — sections (fast + f64 kernels), LNS tensors, user-kernel tuning.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/sigpu-old
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
step checks
$S --json check --device cuda --seed 1 > $OUT/check-1.json
for s in 2 3; do for c in recurrence lns; do timeout 60 $S --json check --device cuda --seed $s --crate $c > $OUT/check-$s-$c.json; done; done
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob(os.environ['OUT'] + '/check-*.json')):
    try: d = json.load(open(f))
    except Exception as e: print(f, e); continue
    print(os.path.basename(f), d['passed'], 'passed', d['failed'], 'failed', [(o['name'], str(o.get('report') or o.get('error'))[:300]) for o in d['checks'] if not o['passed']])
PY
for b in sigpu-old sigpu; do step "bench sos $b"; timeout 40 .gpu/$b bench filter --device cuda --sos --log2-n 26,28 --runs 20 2>&1 | tail -3; done
step pytest; SIGPU_REQUIRE_GPU=1 timeout 170 python3 -m pytest -q python/tests -p no:cacheprovider 2>&1 | tail -8
step "sanitize"; for tc in memcheck:recurrence racecheck:recurrence memcheck:lns; do t=${tc%%:*}; c=${tc##*:}; extra=; [ $t = racecheck ] && extra="--racecheck-report hazard"; timeout 50 compute-sanitizer --tool $t $extra --print-limit 20 $S check --device cuda --seed 9 --crate $c --sanitize > /tmp/san.log 2>&1; echo "$t $c rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1) $(grep -c PASS /tmp/san.log) pass-lines"; done
step "lns tensor bench"; timeout 100 python3 bench/peers/lns_tensor_gpu.py --quick 2>&1 | tail -22
step "approx user kernels"; SIGPU=$S LOG2N=23 timeout 70 bash bench/approx/tune_user_kernels.sh /tmp/approx 2>&1 | tail -14
true
