#!/bin/bash
set -u
cd "$(dirname "$0")"
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
SECONDS=0
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
NV="nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo"
for f in lns_*.cu; do $NV -c $f -o ${f%.cu}.o & done
wait
$NV lns_*.o -o lns_main
echo "built after ${SECONDS} s"
cuobjdump -res-usage lns_main 2>/dev/null | grep -A1 "partials_narrow" > $R/lns_res.txt
timeout 100 ./lns_main > $R/lns.jsonl; echo "lns rc $? after ${SECONDS} s"
timeout 30 python3 -c "
import torch,statistics
a=torch.randn(1<<28,device='cuda')
f=lambda: torch.logsumexp(a,0)
for _ in range(3): f()
t=[]
for _ in range(20):
  s,e=torch.cuda.Event(enable_timing=True),torch.cuda.Event(enable_timing=True); s.record(); f(); e.record(); e.synchronize(); t.append(s.elapsed_time(e))
print('{\"peer\": \"torch.logsumexp f32 2^28\", \"ms\": %.5f, \"gelem\": %.1f}' % (statistics.median(t), (1<<28)/statistics.median(t)/1e6))
" > $R/peer.jsonl
S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --metrics smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,smsp__sass_thread_inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed"
timeout 60 ncu $S -k regex:"partials_narrow_(base|f2s_pf1|f2s)$" --csv --page details ./lns_main --ncu > $R/ncu_lns.csv 2>&1; echo "ncu lns after ${SECONDS} s"
} > $R/log.txt 2>&1
cat $R/log.txt | tail -8; cat $R/lns_res.txt | grep -o "REG:[0-9]* STACK:[0-9]*" | head -24 | tr '\n' ' '; echo
grep -v check $R/lns.jsonl; echo "identical: $(grep -c '"same_word": true, "same_partials": true' $R/lns.jsonl) of $(grep -c check $R/lns.jsonl)"; grep check $R/lns.jsonl | grep false | head
cat $R/peer.jsonl
