#!/bin/bash
set -x
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64
R=$OUT/r; mkdir -p $R
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o proto proto.cu 2> $R/nvcc.txt || { cat $R/nvcc.txt; tar -C $OUT -czf $OUT/r.tgz r; exit 1; }
./proto > $R/bench1.txt 2>&1; cat $R/bench1.txt
cuobjdump -sass proto > $R/sass.txt
M=sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tex.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpc__cycles_elapsed.max
timeout 70 ncu --metrics $M -k regex:'single|blend' ./proto profile > $R/ncu_metrics.txt 2>&1
timeout 70 ncu --section ComputeWorkloadAnalysis --section SchedulerStats --section InstructionStats --print-details all -k regex:'single|blend' ./proto profile > $R/ncu_sections.txt 2>&1
./proto > $R/bench2.txt 2>&1
tail -5 $R/ncu_metrics.txt
tar -C $OUT -czf $OUT/r.tgz r
