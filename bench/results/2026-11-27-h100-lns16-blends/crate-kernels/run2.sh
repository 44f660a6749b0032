#!/bin/bash
set -x
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64
R=$OUT/c; mkdir -p $R
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -I. -o crate crate.cu 2> $R/nvcc.txt || { cat $R/nvcc.txt; tar -C $OUT -czf $OUT/c.tgz c; exit 1; }
timeout 100 ./crate > $R/crate1.txt 2>&1; cat $R/crate1.txt
cuobjdump -sass -fun lns_blend_texlut_sfu crate > $R/sass_blend.txt 2>&1
cuobjdump -sass -fun lns_bench_texlut crate > $R/sass_texlut.txt 2>&1
cuobjdump -sass -fun lns_bench_sfu crate > $R/sass_sfu.txt 2>&1
M=sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tex.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpc__cycles_elapsed.max
timeout 60 ncu --metrics $M -k regex:'lns_bench|lns_blend' ./crate profile > $R/ncu_metrics.txt 2>&1
tar -C $OUT -czf $OUT/c.tgz c
