#!/usr/bin/env bash
# The merged tree on the H200, from the repository root, in device calls of under ten minutes:
# PART=tests — the GPU test binaries (.gpu/test-*), every self-check, compute-sanitizer's
# memcheck and racecheck on the complex-coefficient and NR decoder checks, the Python GPU suite;
# PART=bench — the launch-policy search, then every row of the H200 limits table with its peer
# in the same call (filter suite, sosfilt, LNS streaming and fused kernels, CLNS, the NR
# decoder, Python lfilter / sosfilt / complex64, the LNS tensors, cupyx, CUB, torch).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1 SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-* 2>/dev/null; R=$OUT
t0=$(date +%s); step() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if [ "${PART:-tests}" = tests ]; then
for t in .gpu/test-*; do
  step "test $(basename $t)"
  SIGPU_REQUIRE_GPU=1 timeout 150 $t --test-threads 2 2>&1 | grep -E "^test result|FAILED|panicked" | head -8
done
step check; timeout 200 $S --json check --device cuda --seed ${SEED:-13} > $R/check.json 2> $R/check.err; echo "rc=$?"
python3 - "$R/check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["device"], "seed", d["seed"], "passed", d["passed"], "failed", d["failed"])
for c in d["checks"]:
    if not c["passed"]:
        print("FAIL", c["name"], str(c.get("error"))[:300], str((c.get("report") or {}).get("note"))[:300])
PY
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool"
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $S --json check --device cuda --seed 13 --filter ${SAN_FILTER:-recurrence/complex} --sanitize > $R/san-$tool-complex.json 2> $R/san-$tool-complex.err; echo "complex rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $R/san-$tool-complex.err | tail -1
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $S --json check --device cuda --seed 13 --filter ldpc/nr --sanitize > $R/san-$tool-nr.json 2> $R/san-$tool-nr.err; echo "nr rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $R/san-$tool-nr.err | tail -1
done
step python
SIGPU_REQUIRE_GPU=1 timeout 240 python3 -m pytest -q -rs -p no:cacheprovider -x python/tests > $R/pytest.txt 2>&1; tail -4 $R/pytest.txt; grep -E "^FAILED|Error" $R/pytest.txt | head -8
else
step "policy search"; timeout 120 ${TUNE_CMD:-true} > $R/tune.txt 2>&1; echo "rc=$?"; tail -12 $R/tune.txt
step "bench copy"; timeout 60 $S --json bench copy --device cuda > $R/copy.json; python3 -c "import json;d=json.load(open('$R/copy.json'));print({k:v for k,v in d.items() if 'gb' in k.lower()})"
step "bench filter"; timeout 150 $S bench filter --device cuda --log2-n 26,28 --runs 10 --out $R/filter.json 2>&1 | tail -14
step "bench filter --sos"; timeout 100 $S bench filter --device cuda --sos --log2-n 26,28 --runs 20 --out $R/sos.json 2>&1 | tail -6
for f in lns16 lns32; do step "bench lns $f"; timeout 120 $S --json bench lns --device cuda --format $f > $R/lns-$f.json 2> $R/lns-$f.err; echo "rc=$?"; done
step "bench clns"; timeout 100 $S --json bench clns --device cuda > $R/clns.json 2> $R/clns.err; echo "rc=$?"
step "bench ldpc nr"; timeout 100 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5,20 --runs 10 --json --out $R/nr.json > $R/nr.txt 2>&1; grep -E "BG1|slot|mixed|uniform" $R/nr.txt
step "python targets"; timeout 150 python3 python/bench/gpu_targets.py --skip ldpc > $R/gpu_targets.json 2> $R/gpu_targets.log; echo "rc=$?"; tail -5 $R/gpu_targets.log | cut -c1-300
step "complex on the GPU"; timeout 100 python3 bench/peers/complex_gpu.py > $R/complex_gpu.txt 2>&1; echo "rc=$?"; tail -8 $R/complex_gpu.txt
step "peers: cupyx, CUB, torch"
timeout 100 python3 bench/peers/recurrence_peers.py --cpu-log2-n 0 > $R/recurrence_peers.txt 2>&1; echo "rc=$?"; tail -6 $R/recurrence_peers.txt
nvcc -O3 -arch=sm_90 -o /tmp/scan_cub bench/peers/scan_cub.cu && timeout 60 /tmp/scan_cub > $R/cub.jsonl 2>&1; echo "cub rc=$?"; tail -4 $R/cub.jsonl
timeout 60 python3 bench/peers/scan_torch.py > $R/scan_torch.jsonl 2>&1; tail -8 $R/scan_torch.jsonl
step "LNS tensors"; timeout 150 python3 bench/peers/lns_tensor_bench.py > $R/lns_tensor_bench.txt 2>&1; echo "rc=$?"; grep -E "DIFF|logsumexp|matmul" $R/lns_tensor_bench.txt | head -12
fi
echo "elapsed $(( $(date +%s) - t0 )) s"
