#!/usr/bin/env bash
# Final device call: sanitizer on the crates whose kernels changed, 5 seeds of every check,
# the Python GPU tests, the look-back filter rows, the accuracy sweep's GPU part.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/sanitize
step() { echo; echo "== $1 ($(date +%T))"; }
step sanitize; .gpu/sanitize --sigpu $S --logs $OUT/san --crates "recurrence ldpc" --timeout 90 2>&1 | tail -9
step checks; $S --json check --device cuda --seed 1 > $OUT/check-1.json
for s in 2 3 4 5; do for c in recurrence ldpc; do $S --json check --device cuda --seed $s --crate $c > $OUT/check-$s-$c.json; done; done
python3 - <<'PY'
import json, glob, os
for f in sorted(glob.glob(os.environ['OUT'] + '/check-*.json')):
    d = json.load(open(f)); print(os.path.basename(f), d['passed'], 'passed', d['failed'], 'failed', [o['name'] for o in d['checks'] if not o['passed']])
PY
step pytest; rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
SIGPU_REQUIRE_GPU=1 timeout 150 python3 -m pytest -q python/tests -p no:cacheprovider 2>&1 | tail -5
step "bench filter"; timeout 60 $S bench filter --device cuda --log2-n 28 --runs 10 --out $OUT/filter.json 2>&1 | tail -8
true
