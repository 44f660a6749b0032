#!/bin/bash
# Builds the harness with and without the streaming add's no-special-words fast path
# (LNS_ADD_FASTPATH, on by default) and runs both in full, then ncu on two streaming adds of
# the default build. (The first run of 2026-11-27 compared LNS_ADD_UNROLL = 1, 2, 4 vectors
# per thread and step; the second a deferral of near-pole d_b words, since dropped.)
set -u
D=${1:-.gpu-lns-f32-faithful}
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64
cd "$D"
B="nvcc -O3 -std=c++17 -arch=sm_90 -I. f32split_harness.cu"
$B -o hA > buildA.log 2>&1 &
$B -DLNS_ADD_FASTPATH=0 -o hB > buildB.log 2>&1 &
wait
cat buildA.log buildB.log | tail -5
./hA . && ./hB .
for K in lns_add_f32split lns_add_sfu_u16; do
timeout 60 ncu --kernel-name $K --launch-skip 3 --launch-count 1 \
  --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio \
  ./hA . stream 2>&1 | grep -E "lns_add|dram__|sm__|smsp__|launch__|gpu__|l1tex__|ERR" | head -20
done
