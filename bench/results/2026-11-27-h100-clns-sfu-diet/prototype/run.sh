#!/bin/bash
# One device call: harness (certificate + Table I), then Nsight Compute on one launch per variant.
cd "$(dirname "$0")"; mkdir -p $OUT/r
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/r/gpu.txt 2>&1
python3 harness.py all 2>&1 | tee $OUT/r/log.txt
cp $OUT/report.json $OUT/r/ 2>/dev/null
timeout 70 ncu --kernel-name regex:w_add_ --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__cycles_elapsed.avg.per_second python3 harness.py ncu > $OUT/r/ncu.txt 2>&1
tail -5 $OUT/r/ncu.txt
cd $OUT && tar czf diet.tgz r && rm -rf r report.json
