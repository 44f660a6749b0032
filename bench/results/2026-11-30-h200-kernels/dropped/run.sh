#!/bin/bash
# Kernel experiments on the H200: the LNS logsumexp rows kernel with fewer live registers
# (bit-for-bit checks and timings through Python), and the 5G NR decoder with three blocks per
# SM (one-lane kernel) and the whole shared-memory carveout (both kernels): timings, ncu of
# both kernels, ptxas register / spill report and SASS of the NR kernels built with nvcc.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
rm -rf /tmp/site; python3 -m zipfile -e .gpu/sigpu-*.whl /tmp/site >/dev/null; export PYTHONPATH=/tmp/site
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats"
step() { echo; echo "== $1 ($(date +%T))"; }
step "ptxas on the NR kernels"
# .gpu/nrk holds the kernels of the tree under test (three blocks per SM for the one-lane
# kernel); crates/ldpc/kernels those before the change.
for k in ldpc_nr_layered8 ldpc_nr_layered8x2; do
  for d in crates/ldpc/kernels .gpu/nrk; do
    echo "-- $d/$k"; nvcc -arch=sm_90 -cubin -Xptxas -v -I $d $d/$k.cu -o /tmp/$k.cubin 2>&1 | grep -E "registers|spill|error"
  done
  cuobjdump -sass /tmp/$k.cubin > $OUT/$k.sass; wc -l $OUT/$k.sass
done
step "LNS tensors (checks, timings)"
timeout 150 python3 bench/peers/lns_tensor_bench.py > $OUT/lns-tensor.txt 2>&1; echo rc=$?; grep -E "DIFF|differ|FAIL|logsumexp|matmul|sum\(" $OUT/lns-tensor.txt | head -30
step "LNS logsumexp edge logs: GPU words against the CPU's"
python3 - <<'PY'
import numpy as np, torch
from sigpu import lns
rng = np.random.default_rng(7)
bad = 0
for fmt in ("lns32", "lns16"):
    for dt in (np.float32, np.float64):
        x = rng.standard_normal((4096, 64)).astype(dt) * 30
        x[::7, 3] = -1e30; x[::11, 5] = -np.inf; x[::13, 9] = np.nan; x[::17, :] = -1e30
        x[::19, 2] = 1e30; x[::23, :] = -np.inf; x[::29, 1] = np.inf; x[::31, 0] = -3e15
        x[::37, :] = rng.standard_normal(64) * 1e6
        for rows in (x, x[:, :63].copy(), x[:, :17].copy()):
            g = lns.logsumexp(torch.from_numpy(rows).cuda(), -1, format=fmt).cpu().numpy()
            c = lns.logsumexp(rows, -1, format=fmt)
            same = np.array_equal(g.view(np.uint8), np.asarray(c).view(np.uint8)) or np.array_equal(g, c, equal_nan=True)
            bad += not same
            print(fmt, dt.__name__, rows.shape, "equal" if same else f"DIFFER at {np.flatnonzero(~((g == c) | (np.isnan(g) & np.isnan(c))))[:5]}")
print("edge cases differing:", bad)
PY
step "ncu: logsumexp (2^20, 64) lns32, matmul 2048^3 lns16 / lns32"
cat > /tmp/lse.py <<'PY'
import torch
from sigpu import lns
x = torch.randn(1 << 20, 64, device="cuda")
for _ in range(2): lns.logsumexp(x, -1, format="lns32")
for fmt, storage in (("lns16", "int16"), ("lns32", "int32")):
    a = lns.Tensor.from_float(torch.randn(2048, 2048, device="cuda"), fmt, storage)
    b = lns.Tensor.from_float(torch.randn(2048, 2048, device="cuda"), fmt, storage)
    c = a @ b
torch.cuda.synchronize()
PY
timeout 150 ncu --clock-control none $SEC -k regex:"log_rows|matmul" -s 1 -c 5 python3 /tmp/lse.py > $OUT/lse-ncu.txt 2>&1; echo rc=$?
grep -E "^  [a-z_0-9]+ |Duration|DRAM Throughput|Registers|Achieved Occ|Theoretical Occ|Issue Slots|Executed Ipc A|Executed Instructions  |Local Memory Spilling Requests  " $OUT/lse-ncu.txt
step "NR bench"
timeout 100 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5,20 --runs 10 > $OUT/nr-bench.txt 2>&1; echo rc=$?; grep -E "BG1|slot|mixed|uniform" $OUT/nr-bench.txt
step "NR self-checks"
timeout 100 $S --json check --device cuda --filter ldpc/nr --seed 11 > $OUT/nr-checks.json 2>&1; python3 -c "import json,os; d=json.load(open(os.environ['OUT']+'/nr-checks.json')); print(d['passed'],'passed',d['failed'],'failed')"
step "NR ncu, both kernels"
timeout 200 ncu --clock-control none $SEC -k regex:ldpc_nr -s 3 -c 4 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5 --runs 2 > $OUT/nr-ncu.txt 2>&1; echo rc=$?
grep -E "^  [a-z_0-9]+ |Duration|Registers|Achieved Occ|Theoretical Occ|Issue Slots|Executed Ipc A|Executed Instructions  |Block Limit|highest-utilized" $OUT/nr-ncu.txt | head -60
tar czf $OUT/sass.tgz -C $OUT ldpc_nr_layered8.sass ldpc_nr_layered8x2.sass && rm $OUT/*.sass
