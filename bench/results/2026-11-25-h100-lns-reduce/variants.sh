#!/bin/bash
# One device call for the v5 kernel (1024-entry table, degree-4 polynomial, 2^52 trick) at 4
# (sigpu, the committed default), 3 and 5 resident blocks per SM (sigpu3, sigpu5: RED_MINB and
# the host's blocks per SM changed together): checks, lns32 sum/dot each, lns16 and the torch
# peers with the default, ncu on one lns32 sum and one dot launch of the default.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
for b in sigpu sigpu3 sigpu5; do
  echo "== $b"
  "$D/$b" check --device cuda --seed 17 --filter lns/fused
  "$D/$b" --json bench lns --device cuda --format lns32 --reduce-only > "$OUT/$b-lns32.json"; cat "$OUT/$b-lns32.json"
done
"$D/sigpu" --json bench lns --device cuda --format lns16 --reduce-only > "$OUT/lns16.json"; cat "$OUT/lns16.json"
python3 "$D/reduce_torch.py" > "$OUT/peer.json"; cat "$OUT/peer.json"
for skip in 0 23; do
  ncu --clock-control none -k regex:lns_fused_partials -s $skip -c 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats \
    --section WarpStateStats --section InstructionStats \
    "$D/sigpu" bench lns --device cuda --format lns32 --reduce-only >> "$OUT/ncu.txt" 2>&1
done
grep -E "lns_fused|DRAM Throughput|Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Issued Ipc|FP64|No Eligible|Theoretical Occ" "$OUT/ncu.txt" | head -40
} 2>&1 | tee "$OUT/log.txt"
