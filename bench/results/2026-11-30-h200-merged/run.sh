#!/bin/bash
# The merged tree on the H200, first call: the complex-coefficient GPU engine (per-channel
# kernel and the chunked complex64 scan) — its self-checks, the GPU test binary,
# compute-sanitizer memcheck / racecheck on the checks, the Python GPU tests (complex filters,
# the CUDA layout, conformance, NR mixed batches) and timings of complex64 / complex128
# filtering of CUDA tensors — then the launch-policy search (`sigpu tune`) for the PLR and
# sosfilt kernels and its GPU test.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-*
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
step() { echo; echo "== $1 ($(date +%T))"; }
step "checks"
timeout 120 $S --json check --device cuda --filter recurrence/complex --seed 13 > $OUT/check.json 2> $OUT/check.err; echo rc=$?
python3 -c "import json,os; d=json.load(open(os.environ['OUT']+'/check.json')); print(d['passed'],'passed',d['failed'],'failed'); [print(c['name'], c['passed'], str(c.get('error') or (c.get('report') or {}).get('note'))[:300]) for c in d['checks']]"
for t in .gpu/test-complex-gpu .gpu/test-nr-gpu .gpu/test-tune; do step "$t"; SIGPU_REQUIRE_GPU=1 timeout 150 $t --nocapture 2>&1 | grep -E "^test |test result|panicked|FAILED" | head -12; done
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool"
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $S --json check --device cuda --seed 13 --filter recurrence/complex --sanitize > $OUT/san-$tool.json 2> $OUT/san-$tool.err; echo rc=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error" $OUT/san-$tool.err | tail -2
done
step "pytest"
SIGPU_REQUIRE_GPU=1 timeout 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_complex_filters.py python/tests/test_complex_cuda_layout.py python/tests/test_scipy_conformance.py python/tests/test_ldpc_nr.py > $OUT/pytest.txt 2>&1; tail -3 $OUT/pytest.txt; grep -E "^FAILED|^ERROR" $OUT/pytest.txt | head
step "timings"
for a in "--log2-n 28" "--log2-n 26 --channels 4096" "--log2-n 26 --channels 4096 --dtype complex128"; do
  echo "-- $a"; timeout 100 python3 bench/peers/complex_gpu.py $a > $OUT/complex_gpu$(echo $a | tr -d ' -').json 2>&1; echo rc=$?; tail -c 1500 $OUT/complex_gpu$(echo $a | tr -d ' -').json; echo
done
step "launch-policy search: plr, sos"
export SIGPU_TUNING_CACHE=/tmp/sigpu-tuning; mkdir -p $OUT/tune
timeout 330 $S --device cuda --json tune --family plr,sos --log2-n 26,28 --runs 10 --warmup 2 --out $OUT/tune/plr-sos.json > $OUT/tune/plr-sos.stdout 2> $OUT/tune/plr-sos.err; echo rc=$?; tail -n 5 $OUT/tune/plr-sos.err
cp /tmp/sigpu-tuning/*.json $OUT/tune/ 2>/dev/null; ls $OUT/tune
python3 - <<'PY'
import json, os
d = json.load(open(os.environ['OUT'] + '/tune/plr-sos.json'))
print(json.dumps(d, indent=1)[:3000])
PY
