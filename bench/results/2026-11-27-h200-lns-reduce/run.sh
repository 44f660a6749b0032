#!/bin/bash
# One device call on the H100 (about 30-45 s): the fused LNS sum/dot self-checks
# (lns/fused_sum_dot_lns16, lns/fused_sum_dot_lns32) on run seeds 1-60, then the fused
# reductions' benchmark (lns32, lns16) and the torch peers. From the repository root:
#
#   OUT=$OUT bash bench/results/2026-11-27-h200-lns-reduce/run.sh
#
# D = folder with the stripped release `sigpu` built from this tree (default .gpu).
set -u
: "${OUT:?set OUT to the folder the results go to}"
D=${D:-.gpu}
S="$D/sigpu"
HERE=bench/results/2026-11-27-h200-lns-reduce
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export SIGPU_KERNEL_CACHE=${SIGPU_KERNEL_CACHE:-/tmp/sigpu-kc}
mkdir -p "$OUT/checks"
SECONDS=0
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
# Seed 21 alone first (the seed the kernel failed on; it also fills the NVRTC cache), then the
# other 59 seeds, 8 processes at a time (the checks' time is mostly the CPU twin's).
"$S" --json check --device cuda --filter lns/fused --seed 21 \
  > "$OUT/checks/seed21.json" 2> "$OUT/checks/seed21.err"
seq 1 60 | grep -vx 21 | timeout 60 xargs -P 8 -I{} sh -c \
  '"$0" --json check --device cuda --filter lns/fused --seed {} > "$1/checks/seed{}.json" 2> "$1/checks/seed{}.err"' \
  "$S" "$OUT"
echo "checks done after ${SECONDS} s"
python3 "$HERE/summarize.py" "$OUT/checks" > "$OUT/checks-summary.json"
cat "$OUT/checks-summary.json"
# 2^28 words, copy ceiling first; 3 warm-ups, median of 20 CUDA-event timings each.
timeout 60 "$S" --json bench lns --device cuda --format lns32 --reduce-only > "$OUT/lns32.json"; cat "$OUT/lns32.json"
timeout 60 "$S" --json bench lns --device cuda --format lns16 --reduce-only > "$OUT/lns16.json"; cat "$OUT/lns16.json"
timeout 60 python3 bench/peers/reduce_torch.py > "$OUT/peer.json"; cat "$OUT/peer.json"
echo "all done after ${SECONDS} s"
} 2>&1 | tee "$OUT/log.txt"
