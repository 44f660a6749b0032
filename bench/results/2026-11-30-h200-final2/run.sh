#!/usr/bin/env bash
# The final tree of 2026-11-30 on the H200, from the repository root, in device calls of under
# ten minutes. PART=tests: every self-check, the GPU test binaries (.gpu/tests.tar.xz),
# compute-sanitizer memcheck / racecheck on the changed kernels' checks, the Python suite.
# PART=bench: the rows the day's changes move, each with its peer in the same call, and ncu
# readings of the kernels still short of their targets. Outputs are tarred to $OUT.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1 SIGPU_KERNEL_CACHE=/tmp/sigpu-kc SIGPU_TUNING_CACHE=off
tar xJf .gpu/tests.tar.xz -C .gpu; S=$PWD/.gpu/sigpu; chmod +x $S .gpu/test-* 2>/dev/null; R=/tmp/r-${PART:-tests}; rm -rf $R; mkdir -p $R
t0=$(date +%s)
step() { tar czf $OUT/out-${PART:-tests}.tgz -C $R . 2>/dev/null; echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if [ "${PART:-tests}" = tests ]; then
(for t in .gpu/test-*; do echo "-- $t"; SIGPU_REQUIRE_GPU=1 SIGPU_REQUIRE_NVRTC=1 timeout 200 $t --test-threads 2 2>&1 | grep -E "^test result|FAILED|panicked|^test .* \.\.\. (FAILED|ok)$" | head -30; done) > $R/tests.txt 2>&1 &
TB=$!
step check; timeout 300 $S --json check --device cuda --seed ${SEED:-13} > $R/check.json 2> $R/check.err; echo "rc=$?"
python3 - "$R/check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["device"], "seed", d["seed"], "passed", d["passed"], "failed", d["failed"])
for c in d["checks"]:
    if not c["passed"]:
        print("FAIL", c["name"], str(c.get("error"))[:400], str((c.get("report") or {}).get("note"))[:300])
PY
for f in recurrence/view_ ldpc/nr lns/rows recurrence/sos; do for tool in memcheck racecheck; do
  n=$(echo $f | tr / -); step "compute-sanitizer $tool $f"
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $S --json check --device cuda --seed 13 --filter $f --sanitize > $R/san-$tool-$n.json 2> $R/san-$tool-$n.err; echo "rc=$?"; grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $R/san-$tool-$n.* | tail -1
done; done
step "test binaries"; wait $TB; cat $R/tests.txt
step python
SIGPU_REQUIRE_GPU=1 timeout 240 python3 -m pytest -q -rs -p no:cacheprovider python/tests > $R/pytest.txt 2>&1; tail -3 $R/pytest.txt; grep -E "^FAILED|^ERROR" $R/pytest.txt | head -12
else
step "bench copy"; timeout 40 $S --json bench copy --device cuda > $R/copy.json; python3 -c "import json;d=json.load(open('$R/copy.json'));print({k:v for k,v in d.items() if 'gb' in k.lower()})"
step "bench filter --sos"; timeout 90 $S bench filter --device cuda --sos --log2-n 26,28 --runs 10 --check-up-to 22 --sos-shapes default,256x32/4,320x32,256x32c2 --out $R/sos.json > $R/sos.txt 2>&1; tail -8 $R/sos.txt
step "bench ldpc nr"; timeout 90 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5,20 --runs 10 --json --out $R/nr.json > $R/nr.txt 2>&1; grep -E "BG1|slot|mixed|uniform|parts|Lanes|Pairs" $R/nr.txt | head -20
step "grad targets"; timeout 150 python3 python/bench/gpu_grad_targets.py --runs 10 > $R/grad.json 2> $R/grad.err; echo "rc=$?"; cat $R/grad.err | tail -12
step "complex64"; timeout 60 python3 bench/peers/complex_gpu.py --log2-n 28 > $R/complex_gpu.json 2> $R/complex_gpu.err; echo "rc=$?"; python3 -c "import json;d=json.load(open('$R/complex_gpu.json'));print(json.dumps(d)[:1500])"
step "python targets"; timeout 100 python3 python/bench/gpu_targets.py --skip ldpc > $R/gpu_targets.json 2> $R/gpu_targets.log; echo "rc=$?"; tail -6 $R/gpu_targets.log | cut -c1-300
step "LNS tensors"; timeout 120 python3 bench/peers/lns_tensor_bench.py > $R/lns_tensor_bench.txt 2>&1; echo "rc=$?"; grep -E "DIFF|differ|logsumexp|matmul|sum" $R/lns_tensor_bench.txt | head -16
step "filter suite"; timeout 100 $S bench filter --device cuda --log2-n 26,28 --runs 10 --check-up-to 22 --out $R/filter.json > $R/filter.txt 2>&1; tail -14 $R/filter.txt
step "bench lns"; timeout 60 $S --json bench lns --device cuda --format lns16 > $R/lns-lns16.json 2> $R/lns-lns16.err; echo "rc=$?"
step "bench clns"; timeout 45 $S --json bench clns --device cuda > $R/clns.json 2> $R/clns.err; echo "rc=$?"
N="ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats --section SchedulerStats --section Occupancy"
step "ncu clns sfu add"; timeout 90 $N -k regex:bench_clns_add_sfu -c 1 $S --device cuda bench clns > $R/ncu-clns-sfu.txt 2>&1; echo "rc=$?"
step "ncu lns16 u16 add"; timeout 90 $N -k regex:'lns_add_.*_u16' -c 2 $S --device cuda bench lns --format lns16 > $R/ncu-lns16-u16.txt 2>&1; echo "rc=$?"
step "ncu sos"; timeout 90 $N -k regex:sos_filter -s 2 -c 1 $S --device cuda bench filter --sos --log2-n 26 --runs 2 --no-check > $R/ncu-sos.txt 2>&1; echo "rc=$?"
step "ncu nr"; timeout 90 $N --metrics smsp__inst_executed.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active -k regex:'^ldpc_nr_layered8$' -s 3 -c 1 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5 --runs 2 > $R/ncu-nr.txt 2>&1; echo "rc=$?"
step "grad profile"; timeout 120 python3 bench/results/2026-11-30-h200-grad-profile/grad_prof.py > $R/grad_prof.txt 2>&1; echo "rc=$?"
fi
tar czf $OUT/out-${PART:-tests}.tgz -C $R .
echo "elapsed $(( $(date +%s) - t0 )) s"
