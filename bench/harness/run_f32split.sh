#!/bin/bash
# Builds the harness three times (16-byte vectors per thread and step: 1, 2, 4) and runs it:
# everything with the default (2), the streaming part with 1 and 4, then ncu on the streaming add.
set -u
D=${1:-.gpu-lns-f32-faithful}
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64
cd "$D"
for U in 1 2 4; do nvcc -O3 -std=c++17 -arch=sm_90 -DLNS_ADD_UNROLL=$U -I. -o h$U f32split_harness.cu > build$U.log 2>&1 & done
wait
tail -3 build2.log
./h2 . && ./h1 . stream && ./h4 . stream
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
for K in lns_add_f32split lns_add_sfu_u16; do
timeout 60 ncu --kernel-name $K --launch-skip 3 --launch-count 1 \
  --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio \
  ./h2 . stream 2>&1 | grep -E "lns_add|dram__|sm__|smsp__|launch__|gpu__|ERR|==PROF==" | head -20
done
