#!/bin/bash
# The final tree on the H200: the time-varying all-pole filter against torchlpc (poles to
# 0.95), every self-check, the GPU test binaries, the Python GPU suite, and the CLI on the GPU
# (a filter, the NR decoder through `ldpc simulate`, the demo).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-*
step() { echo; echo "== $1 ($(date +%T))"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
step "torchlpc build"
MAX_JOBS=16 timeout 200 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/tl .whl/torchlpc-0.7.2.tar.gz > $OUT/torchlpc-build.txt 2>&1; echo rc=$?
step "all-pole vs torchlpc"
PYTHONPATH=/tmp/site:/tmp/tl timeout 120 python3 bench/peers/allpole_torchlpc.py 64 65536 16 20 > $OUT/allpole.json 2> $OUT/allpole.err; echo rc=$?; cat $OUT/allpole.json; tail -n 3 $OUT/allpole.err
step "CLI on the GPU"
(python3 -c "import numpy as np; np.save('/tmp/x.npy', np.random.default_rng(1).standard_normal(1<<20).astype(np.float32))"
$S --device cuda --json filter --b 0.0675,0.1349,0.0675 --a 1,-1.143,0.4128 --input /tmp/x.npy --output /tmp/y.npy | python3 -c "import json,sys; d=json.load(sys.stdin); print({k:d[k] for k in ('method','device','error_bound','msamples_per_s')})"
timeout 60 $S --device cuda ldpc simulate --code nr:k=1000,n=3000 --eb-n0 1,2 --max-frames 2000 --min-errors 50; echo rc=$?
timeout 60 $S --device cuda demo > /tmp/demo.txt 2>&1; echo demo rc=$?; tail -n 5 /tmp/demo.txt) > $OUT/cli.txt 2>&1
cat $OUT/cli.txt
step "checks, GPU tests and pytest (parallel)"
(timeout 240 $S --json check --device cuda --seed 9 > $OUT/check-9.json
python3 -c "import json,os; d=json.load(open(os.environ['OUT']+'/check-9.json')); print(d['passed'],'passed',d['failed'],'failed',[(o['name'],str(o.get('report') or o.get('error'))[:400]) for o in d['checks'] if not o['passed']])"
for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 timeout 150 $t 2>&1 | grep -E "test result|FAILED|panicked" | head -6; done
) > $OUT/checks-tests.txt 2>&1 &
(SIGPU_REQUIRE_GPU=1 PYTHONPATH=/tmp/site:/tmp/tl timeout 330 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $OUT/pytest.txt 2>&1) &
wait
cat $OUT/checks-tests.txt
grep -E "passed|failed" $OUT/pytest.txt | tail -3; grep -E "^FAILED|Error" $OUT/pytest.txt | head -12
