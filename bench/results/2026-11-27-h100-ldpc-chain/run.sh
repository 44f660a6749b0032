#!/bin/bash
# The GPU frame chain on one H100: correctness (GPU tests, self-checks), the decoder alone,
# the simulation with frames made on the GPU and on the host, the previous curve points again,
# and ncu on the chain kernels. Usage (repository root, GPU machine):
#   D=.gpu-ldpc-sim-gpu R=$OUT/r bash bench/results/2026-11-27-h100-ldpc-chain/run.sh
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
S="$D/sigpu --device cuda"
mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$R/gpu.txt"
# Correctness first.
SIGPU_REQUIRE_GPU=1 "$D/gpu_chain" --nocapture > "$R/test-gpu-chain.txt" 2>&1
echo "rc $?" >> "$R/test-gpu-chain.txt"
$S check --filter ldpc/frame_chain > "$R/check.txt" 2>&1
$S check --filter ldpc/device_io >> "$R/check.txt" 2>&1
# The decoder alone (upload and download included), 50 iterations.
$S --json bench ldpc --codes dvbt2-normal-1/2,dvbt2-short-1/2 --iterations 50 \
  --out "$R/bench-decoder.json" > /dev/null 2> "$R/bench-decoder.err"
# The previous curve points (2026-11-27-h200x2-multigpu, seed 7), frames made on the GPU.
common="ldpc simulate --code dvbt2-normal-1/2 --seed 7 --min-errors 1000000000"
$S $common --modulation qpsk --eb-n0 1.5 --max-frames 29184 --out "$R/sim-qpsk-1.5.json" > "$R/sim.txt" 2>&1
$S $common --modulation 16qam --eb-n0 3.9 --max-frames 19456 --out "$R/sim-16qam-3.9.json" >> "$R/sim.txt" 2>&1
# Throughput per batch size: frames on the GPU; then on the host (fewer frames).
for m in qpsk 16qam; do
  for b in 128 512 2048; do
    $S $common --modulation $m --eb-n0 4 --max-frames 32768 --batch $b \
      --out "$R/rate-$m-b$b.json" >> "$R/sim.txt" 2>&1
  done
  $S $common --modulation $m --eb-n0 4 --max-frames 2048 --host-frames \
    --out "$R/rate-$m-host.json" >> "$R/sim.txt" 2>&1
  $S ldpc simulate --code dvbt2-short-1/2 --seed 7 --min-errors 1000000000 --modulation $m \
    --eb-n0 4 --max-frames 131072 --batch 1024 --out "$R/rate-short-$m.json" >> "$R/sim.txt" 2>&1
done
# Kernel times: the chain's kernels against the decoder's (one 512-frame batch of each link).
for m in qpsk 16qam; do
  timeout 100 ncu --kernel-name regex:ldpc_ --launch-count 16 \
    --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $S $common --modulation $m --eb-n0 4 --max-frames 512 --batch 512 --iterations 2 \
    > "$R/ncu-$m.txt" 2>&1
done
