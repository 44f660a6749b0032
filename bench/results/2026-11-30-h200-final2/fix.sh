set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH SIGPU_KERNEL_CACHE=/tmp/sigpu-kc SIGPU_TUNING_CACHE=off PYTHONUNBUFFERED=1
tar xJf .gpu/tests.tar.xz -C .gpu; S=$PWD/.gpu/sigpu; R=/tmp/fix; rm -rf $R; mkdir -p $R
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
timeout 200 $S --json check --device cuda --seed 13 --crate recurrence > $R/check-recurrence.json 2> $R/check.err; echo "check rc=$?"
python3 -c "
import json; d=json.load(open('$R/check-recurrence.json')); print('passed', d['passed'], 'failed', d['failed'])
for c in d['checks']:
    if 'view_' in c['name'] or not c['passed']: print(c['name'], c['passed'], str((c.get('report') or {}).get('note'))[:200], str(c.get('error'))[:200])
"
SIGPU_REQUIRE_GPU=1 timeout 100 .gpu/test-recurrence-layout --test-threads 2 2>&1 | grep -E "^test |test result" > $R/layout.txt; cat $R/layout.txt
timeout 60 python3 bench/peers/complex_gpu.py --log2-n 28 > $R/complex_gpu.json 2> $R/complex_gpu.err; echo "complex rc=$?"; python3 -c "import json;d=json.load(open('$R/complex_gpu.json'));print({k:round(v['percent_of_copy'],1) for k,v in d['rows'].items()})"
SIGPU_REQUIRE_GPU=1 timeout 200 python3 -m pytest -q -p no:cacheprovider python/tests > $R/pytest.txt 2>&1; tail -2 $R/pytest.txt; grep -E "^FAILED|^ERROR" $R/pytest.txt | head
timeout 60 python3 python/bench/gpu_grad_targets.py --runs 10 > $R/grad.json 2> $R/grad.err; tail -10 $R/grad.err
tar czf $OUT/fix.tgz -C $R .
