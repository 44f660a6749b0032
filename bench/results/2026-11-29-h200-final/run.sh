#!/bin/bash
# Final tree on the H200: every self-check, the new LNS kernels under compute-sanitizer, the
# GPU planner tests, the Python GPU tests of filters, and the 12-application SFU study with energy.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
step "approx study"
mkdir -p $OUT/approx && timeout 260 $S approx tune --app all --energy-seconds 0.25 --plot $OUT/approx/figures --out $OUT/approx/apps.json > $OUT/approx/apps.txt 2>&1; echo rc=$?; tail -n 40 $OUT/approx/apps.txt
step checks
timeout 150 $S --json check --device cuda --seed 1 > $OUT/check-1.json
timeout 40 $S --json check --device cuda --filter rows_matmul --seed 2 > $OUT/check-rm-2.json
python3 -c "import json,glob,os; [print(os.path.basename(f), (d:=json.load(open(f)))['passed'],'passed',d['failed'],'failed',[(o['name'],str(o.get('report') or o.get('error'))[:300]) for o in d['checks'] if not o['passed']]) for f in sorted(glob.glob(os.environ['OUT']+'/check-*.json'))]"
step sanitizer
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 $S check --device cuda --seed 9 --filter rows_matmul --sanitize 2>&1 | grep -E "ERROR SUMMARY" | tail -1
step "gpu tests"
SIGPU_REQUIRE_GPU=1 .gpu/test-planner 2>&1 | grep -E "test result|panicked" | head -4
(SIGPU_REQUIRE_GPU=1 timeout 150 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_gpu.py python/tests/test_filters.py python/tests/test_autograd.py > $OUT/pytest.txt 2>&1; grep -E "passed|failed" $OUT/pytest.txt | tail -2; grep -E "^FAILED" $OUT/pytest.txt | head)
