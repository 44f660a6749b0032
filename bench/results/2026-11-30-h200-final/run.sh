#!/usr/bin/env bash
# The final tree on the H200, from the repository root, in two device calls of under ten
# minutes. PART=tests: the GPU test binaries (.gpu/test-*, in parallel with every self-check),
# compute-sanitizer memcheck and racecheck on the NR decoder's checks, the Python GPU suite.
# PART=bench: every row of the H200 limits table with its peer in the same call (copy, filter
# suite, sosfilt, LNS streaming and fused kernels, CLNS, the NR decoder, Python lfilter /
# sosfilt, complex64, the LNS tensors; cupyx, CUB, torch). Outputs are tarred (out.tgz).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1 SIGPU_KERNEL_CACHE=/tmp/sigpu-kc SIGPU_TUNING_CACHE=off
S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-* 2>/dev/null; R=/tmp/r; mkdir -p $R
t0=$(date +%s)
# Each step first saves what the steps before it wrote, so a call cut short keeps them.
step() { tar czf $OUT/out-${PART:-tests}.tgz -C $R . 2>/dev/null; echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if [ "${PART:-tests}" = tests ]; then
(for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 timeout 240 $t --test-threads 2 2>&1 | grep -E "^test result|FAILED|panicked|^test .* \.\.\. (FAILED|ok)$" | head -14; done) > $R/tests.txt 2>&1 &
TB=$!
step check; timeout 240 $S --json check --device cuda --seed ${SEED:-13} > $R/check.json 2> $R/check.err; echo "rc=$?"
python3 - "$R/check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["device"], "seed", d["seed"], "passed", d["passed"], "failed", d["failed"])
for c in d["checks"]:
    if not c["passed"]:
        print("FAIL", c["name"], str(c.get("error"))[:300], str((c.get("report") or {}).get("note"))[:300])
PY
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool, NR checks"
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $S --json check --device cuda --seed 13 --filter ldpc/nr --sanitize > $R/san-$tool-nr.json 2> $R/san-$tool-nr.err; echo "rc=$?"; grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $R/san-$tool-nr.* | tail -1
done
step python
SIGPU_REQUIRE_GPU=1 timeout 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $R/pytest.txt 2>&1; tail -3 $R/pytest.txt; grep -E "^FAILED|^ERROR" $R/pytest.txt | head -8
step "test binaries"; wait $TB; cat $R/tests.txt
else
step "bench copy"; timeout 40 $S --json bench copy --device cuda > $R/copy.json; python3 -c "import json;d=json.load(open('$R/copy.json'));print({k:v for k,v in d.items() if 'gb' in k.lower()})"
step "bench filter"; timeout 100 $S bench filter --device cuda --log2-n 26,28 --runs 10 --check-up-to 22 --out $R/filter.json > $R/filter.txt 2>&1; tail -14 $R/filter.txt
step "bench filter --sos"; timeout 60 $S bench filter --device cuda --sos --log2-n 26,28 --runs 10 --check-up-to 22 --out $R/sos.json > $R/sos.txt 2>&1; tail -4 $R/sos.txt
step "bench lns"; timeout 60 $S --json bench lns --device cuda --format lns16 > $R/lns-lns16.json 2> $R/lns-lns16.err; echo "rc=$?"; timeout 60 $S --json bench lns --device cuda --format lns32 > $R/lns-lns32.json 2> $R/lns-lns32.err; echo "rc=$?"
step "bench clns"; timeout 45 $S --json bench clns --device cuda > $R/clns.json 2> $R/clns.err; echo "rc=$?"
step "bench ldpc nr"; timeout 60 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5,20 --runs 10 --json --out $R/nr.json > $R/nr.txt 2>&1; grep -E "BG1|slot|mixed|uniform" $R/nr.txt
step "python targets"; timeout 100 python3 python/bench/gpu_targets.py --skip ldpc > $R/gpu_targets.json 2> $R/gpu_targets.log; echo "rc=$?"; tail -4 $R/gpu_targets.log | cut -c1-300
step "complex64"; timeout 40 python3 bench/peers/complex_gpu.py --log2-n 28 > $R/complex_gpu.json 2>&1; echo "rc=$?"
step "peers"
timeout 60 python3 bench/peers/recurrence_peers.py --cpu-log2-n 0 > $R/recurrence_peers.txt 2>&1; echo "cupyx rc=$?"; tail -4 $R/recurrence_peers.txt
nvcc -O3 -arch=sm_90 -o /tmp/scan_cub bench/peers/scan_cub.cu && timeout 40 /tmp/scan_cub > $R/cub.jsonl 2>&1; echo "cub rc=$?"; cat $R/cub.jsonl | cut -c1-200
timeout 40 python3 bench/peers/scan_torch.py > $R/scan_torch.jsonl 2>&1; cat $R/scan_torch.jsonl | cut -c1-200
step "LNS tensors"; timeout 90 python3 bench/peers/lns_tensor_bench.py > $R/lns_tensor_bench.txt 2>&1; echo "rc=$?"; grep -E "DIFF|differ|logsumexp|matmul" $R/lns_tensor_bench.txt | head -12
fi
tar czf $OUT/out-${PART:-tests}.tgz -C $R .
echo "elapsed $(( $(date +%s) - t0 )) s"
