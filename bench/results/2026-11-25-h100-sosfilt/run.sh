#!/bin/bash
# The H100 run behind BENCHMARKS.md's sosfilt rows: checks, the fused cascade, the cupyx peer
# and the (b, a) kernel in one device call. Run from the repository root with the stripped
# release binary in $D (default .gpu/; the peer script is taken from there too when present);
# writes everything under $OUT (or ./out).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export SIGPU_KERNEL_CACHE=/tmp/sigpu-kc LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
D=${D:-.gpu}; S=$D/sigpu
PEER=bench/peers/sosfilt_cupyx.py; [ -f "$D/sosfilt_cupyx.py" ] && PEER=$D/sosfilt_cupyx.py
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
echo "== checks"; $S check --device cuda --seed 31 --filter recurrence 2>&1 | tee "$OUT/check.txt" | tail -25
echo "== sos bench"; $S bench filter --device cuda --sos --log2-n 26,28 --runs 30 --warmup 5 \
  --sos-shapes "${SHAPES:-default,defaultl,128x32,512x16,128x64,256x16l}" --check-up-to 28 --out "$OUT/sos.json" 2>&1 | tail -20
echo "== cupyx peer"; timeout 200 python3 "$PEER" --log2-n 26,28 --runs 10 > "$OUT/peer.json"; cat "$OUT/peer.json"
echo "== (b, a)"; $S bench filter --device cuda --signature "(0.81, -1.62, 0.81 : 1.6, -0.64)" --log2-n 26,28 --runs 20 --out "$OUT/ba.json" 2>&1 | tail -6
echo "== SASS of the f32 sos kernels (instruction mix per kernel)"
for f in $(grep -l -r "sos_filter" /tmp/sigpu-kc 2>/dev/null | head -6); do
  echo "-- $f"; cuobjdump -sass "$f" 2>/dev/null | grep -oE '^ +/\*[0-9a-f]{4}\*/ +(@!?U?P[0-9T] +)?[A-Z][A-Z0-9_.]*' | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -25
done > "$OUT/sass.txt" 2>&1; head -60 "$OUT/sass.txt"
if [ -n "${NCU:-}" ] && command -v ncu >/dev/null; then
  echo "== ncu"; timeout 180 ncu --kernel-name sos_filter --launch-skip 2 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats \
    --section SchedulerStats --section LaunchStats --section InstructionStats $S bench filter --device cuda --sos --log2-n 26 --runs 1 --warmup 2 \
    --no-check > "$OUT/ncu.txt" 2>&1; grep -E "DRAM Throughput|Memory Throughput|Duration|Issue Slots|Achieved Occupancy|Registers|Warp Cycles Per Issued|Stall|Eligible|No Eligible|Compute \(SM\)" "$OUT/ncu.txt" | head -40
fi
