#!/bin/bash
# The H100 run behind BENCHMARKS.md's sosfilt rows: checks, the fused cascade, the cupyx peer
# and the (b, a) kernel in one device call. Run from the repository root with the stripped
# release binary in .gpu/; writes everything under $OUT (or ./out).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
S=.gpu/sigpu
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
echo "== checks"; $S --json check --device cuda --seed 31 recurrence > "$OUT/check.json"; $S check --device cuda --seed 31 recurrence 2>&1 | tail -25
echo "== sos bench"; $S bench filter --device cuda --sos --log2-n 26,28 --runs 20 --warmup 3 \
  --sos-shapes "${SHAPES:-default,defaultl,128x32,512x16,128x64,256x16l}" --check-up-to 28 --out "$OUT/sos.json" 2>&1 | tail -20
echo "== cupyx peer"; timeout 200 python3 bench/peers/sosfilt_cupyx.py --log2-n 26,28 --runs 10 > "$OUT/peer.json" 2> "$OUT/peer.err"; tail -3 "$OUT/peer.err"; cat "$OUT/peer.json"
echo "== (b, a)"; $S bench filter --device cuda --signature "(0.81, -1.62, 0.81 : 1.6, -0.64)" --log2-n 26,28 --runs 20 --out "$OUT/ba.json" 2>&1 | tail -6
if [ -n "${NCU:-}" ] && command -v ncu >/dev/null; then
  echo "== ncu"; timeout 180 ncu --kernel-name sos_filter --launch-skip 2 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats \
    --section SchedulerStats --section LaunchStats $S bench filter --device cuda --sos --log2-n 26 --runs 1 --warmup 2 \
    --no-check > "$OUT/ncu.txt" 2>&1; grep -E "DRAM Throughput|Memory Throughput|Duration|Issue Slots|Achieved Occupancy|Registers|Warp Cycles Per Issued|Stall|Eligible|No Eligible|Compute \(SM\)" "$OUT/ncu.txt" | head -40
fi
