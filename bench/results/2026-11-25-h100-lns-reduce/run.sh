#!/bin/bash
# One device call: checks, the fused reductions (lns32, lns16), the torch peers, ncu.
# D = folder with the stripped release `sigpu` and reduce_torch.py; OUT = where results go.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S="$D/sigpu"
export SIGPU_KERNEL_CACHE=/tmp/sigpu-kc
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
"$S" check --device cuda --seed 17 --filter lns/fused
"$S" --json bench lns --device cuda --format lns32 --reduce-only > "$OUT/lns32.json"; cat "$OUT/lns32.json"
"$S" --json bench lns --device cuda --format lns16 --reduce-only > "$OUT/lns16.json"; cat "$OUT/lns16.json"
python3 "$D/reduce_torch.py" > "$OUT/peer.json"; cat "$OUT/peer.json"
"$S" bench lns --device cuda --format lns32 --reduce-only
if [ "${NCU:-0}" = 1 ]; then
  for skip in 0 23; do
  ncu --clock-control none -k regex:lns_fused_partials -s $skip -c 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats \
    --section WarpStateStats --section InstructionStats \
    "$S" bench lns --device cuda --format lns32 --reduce-only >> "$OUT/ncu.txt" 2>&1
  done
  grep -E "lns_fused|DRAM Throughput|Memory Throughput|Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Issued Ipc|FP64|Compute \(SM\)|No Eligible|Stall|Theoretical Occ|One or More" "$OUT/ncu.txt" | head -60
fi
# Static SASS of the reduction kernel from the NVRTC cache, and its opcode mix.
for f in /tmp/sigpu-kc/*; do cuobjdump -sass "$f" 2>/dev/null | grep -q lns_fused_partials && cuobjdump -sass "$f" > "$OUT/sass.txt"; done
awk '/Function : lns_fused_partials_narrow/{on=1;next} /Function :/{on=0} on' "$OUT/sass.txt" \
  | grep -oE '^ +/\*[0-9a-f]+\*/ +(@!?U?P[0-9T] +)?[A-Z0-9_.]+' | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -40
} 2>&1 | tee "$OUT/log.txt"
