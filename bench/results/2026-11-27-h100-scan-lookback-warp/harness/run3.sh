#!/bin/bash
# Device call 3: the generated prefix-sum / look-back kernels (new vs old) with copy, CUB and
# torch peers in the same call; LNS reduce occupancy variants; ncu of the generated kernels.
set -u
cd "$(dirname "$0")"
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
SECONDS=0
{
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
NV="nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo"
for f in gen_*.cu lns_*.cu; do $NV -c $f -o ${f%.cu}.o & done
[ -x cub_scan ] || $NV cub_scan.cu -o cub_scan &
wait
$NV gen_*.o -o gen_main; $NV lns_*.o -o lns_main
echo "built after ${SECONDS} s"
cuobjdump -res-usage gen_main 2>/dev/null | grep -A1 plr_filter | grep -o "Function.*\|REG:[0-9]*" | paste - - > $R/gen_res.txt
cuobjdump -res-usage lns_main 2>/dev/null | grep -A1 partials_narrow | grep -o "Function.*\|REG:[0-9]*\|STACK:[0-9]*" | paste - - - > $R/lns_res.txt
timeout 150 ./gen_main > $R/gen.jsonl; echo "gen rc $? after ${SECONDS} s"
timeout 40 ./cub_scan > $R/cub.jsonl; echo "cub rc $? after ${SECONDS} s"
timeout 60 python3 peers.py > $R/peers.jsonl; echo "peers rc $? after ${SECONDS} s"
timeout 80 ./lns_main > $R/lns.jsonl; echo "lns rc $? after ${SECONDS} s"
S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --metrics smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_sample_count,dram__throughput.avg.pct_of_peak_sustained_elapsed"
timeout 60 ncu $S -k regex:"plr_filter_ps_i32" --csv --page details ./gen_main ps_i32 ncu > $R/ncu_gen.csv 2>&1; echo "ncu after ${SECONDS} s"
} > $R/log.txt 2>&1
tail -9 $R/log.txt; cat $R/gen_res.txt $R/lns_res.txt
cat $R/gen.jsonl $R/cub.jsonl $R/peers.jsonl
grep -v check $R/lns.jsonl; echo "identical: $(grep -c '"same_word": true, "same_partials": true' $R/lns.jsonl) of $(grep -c check $R/lns.jsonl)"; grep check $R/lns.jsonl | grep false | head -5
