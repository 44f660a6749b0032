#!/bin/bash
# Second call, after the LLR kernel lost its local-memory arrays and 64-bit division (the
# arithmetic is unchanged) and the GPU chain's default batch became 1024. Usage (repository
# root, GPU machine):
#   D=.gpu-ldpc-sim-gpu R=$OUT/r2 bash bench/results/2026-11-27-h100-ldpc-chain/run2.sh
# $D/sigpu-main is main's CLI (before the frame chain) for the host frame rate of the old
# ChaCha8 + libm frame maker on the same machine.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
S="$D/sigpu --device cuda"
mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$R/gpu.txt"
SIGPU_REQUIRE_GPU=1 "$D/gpu_chain" --nocapture > "$R/test-gpu-chain.txt" 2>&1
echo "rc $?" >> "$R/test-gpu-chain.txt"
$S check --filter ldpc > "$R/check.txt" 2>&1
$S --json bench ldpc --codes dvbt2-normal-1/2,dvbt2-short-1/2 --iterations 50 \
  --out "$R/bench-decoder.json" > /dev/null 2> "$R/bench-decoder.err"
common="ldpc simulate --seed 7 --min-errors 1000000000"
for m in qpsk 16qam; do
  for b in 128 512 1024 2048; do
    $S $common --code dvbt2-normal-1/2 --modulation $m --eb-n0 4 --max-frames 32768 --batch $b \
      --out "$R/rate-$m-b$b.json" >> "$R/sim.txt" 2>&1
  done
  $S $common --code dvbt2-short-1/2 --modulation $m --eb-n0 4 --max-frames 131072 \
    --out "$R/rate-short-$m.json" >> "$R/sim.txt" 2>&1
  $S $common --code dvbt2-normal-1/2 --modulation $m --eb-n0 4 --max-frames 2048 --host-frames \
    --out "$R/rate-$m-host.json" >> "$R/sim.txt" 2>&1
  "$D/sigpu-main" --device cuda $common --code dvbt2-normal-1/2 --modulation $m --eb-n0 4 \
    --max-frames 2048 --out "$R/rate-$m-host-main.json" >> "$R/sim.txt" 2>&1
done
for m in qpsk 16qam; do
  timeout 60 ncu --kernel-name regex:ldpc_chain --launch-count 3 \
    --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active \
    $S $common --code dvbt2-normal-1/2 --modulation $m --eb-n0 4 --max-frames 512 --batch 512 --iterations 2 \
    > "$R/ncu-$m.txt" 2>&1
done
