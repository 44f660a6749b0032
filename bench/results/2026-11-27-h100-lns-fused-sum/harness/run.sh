#!/bin/bash
# The one device call: build the variants, checks + timings (copy in the same process),
# torch.logsumexp peer, ncu of the base and new sums. Results in $OUT/r (tarred by the caller).
set -u
cd "$(dirname "$0")"
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
SECONDS=0
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
./make_wrappers.sh
NV="nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo"
for f in lns_*.cu; do timeout 60 $NV -c $f -o ${f%.cu}.o & done
wait
$NV lns_*.o -o lns_main
echo "built after ${SECONDS} s"
cuobjdump -res-usage lns_main 2>/dev/null | grep -A1 "partials_narrow_base\|partials_lns32\|partials_narrow_new_narrow" | grep -o "Function.*\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*" | paste - - - - > $R/res.txt
timeout 35 ./lns_main > $R/lns.jsonl; echo "lns rc $? after ${SECONDS} s"
timeout 25 python3 -c "
import torch,statistics
a=torch.randn(1<<28,device='cuda')
for name,f in (('torch.logsumexp f32 2^28',lambda: torch.logsumexp(a,0)),('torch.sum f32 2^28',lambda: torch.sum(a))):
  for _ in range(3): f()
  t=[]
  for _ in range(20):
    s,e=torch.cuda.Event(enable_timing=True),torch.cuda.Event(enable_timing=True); s.record(); f(); e.record(); e.synchronize(); t.append(s.elapsed_time(e))
  print('{\"peer\": \"%s\", \"ms\": %.5f, \"gelem\": %.1f}' % (name, statistics.median(t), (1<<28)/statistics.median(t)/1e6))
" > $R/peers.jsonl; echo "peers rc $? after ${SECONDS} s"
S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section InstructionStats --metrics smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_selected,smsp__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,smsp__sass_thread_inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed"
timeout 35 ncu $S -k regex:"partials_(narrow_base|lns32_new)$" -c 2 --csv --page details ./lns_main --ncu > $R/ncu.csv 2>&1; echo "ncu after ${SECONDS} s"
} > $R/log.txt 2>&1
cd $OUT && tar czf r.tgz r
tail -6 $R/log.txt; cat $R/res.txt
grep -v '"check": [0-9]' $R/lns.jsonl
echo "checks: $(grep -c '"check": [0-9]' $R/lns.jsonl); new-family equal to model: $(grep '"check": [0-9]' $R/lns.jsonl | grep '"variant": "new' | grep -c '"equals_model": true') of $(grep '"check": [0-9]' $R/lns.jsonl | grep -c '"variant": "new'); same word+partials as new: $(grep '"variant": "new' $R/lns.jsonl | grep -c '"same_word_as_new": true, "same_partials_as_new": true')"
grep '"variant": "base"' $R/lns.jsonl | grep '"check"' | grep -o '"check": [0-9]*, "n": [0-9]*, "op": "[a-z]*", "variant": "base", "word": "[0-9a-fx]*", "model_word": "[0-9a-fx]*"'
cat $R/peers.jsonl
grep -E '"(Issued Warp Per Scheduler|No Eligible|DRAM Throughput|Registers Per Thread|Achieved Occupancy|Duration)"|sass_thread_inst|pipe_fp64|pcsamp' $R/ncu.csv | awk -F'","' '{print $5" | "$(NF-2)" | "$NF}' | cut -c1-150
