#!/bin/bash
# Device call 1: build the prototypes, check and time them with the peers, then ncu.
set -u
cd "$(dirname "$0")"
R=$OUT/r; mkdir -p $R
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
SECONDS=0
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
nvcc --version | tail -2
NV="nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo"
$NV -c golden_i32.cu -o g1.o & $NV -c golden_f32.cu -o g2.o & $NV -c scan_main.cu -o sm.o &
$NV cub_scan.cu -o cub_scan &
for f in lns_*.cu; do [ $f = lns_main.cu ] || $NV -c $f -o ${f%.cu}.o & done
$NV -c lns_main.cu -o lns_main.o &
wait
$NV sm.o g1.o g2.o -o scan_main && $NV lns_main.o $(ls lns_*.o | grep -v lns_main.o) -o lns_main
echo "built after ${SECONDS} s"
cuobjdump -res-usage scan_main 2>/dev/null | grep -A1 -E "plr_filter|lbwLb1|scan_kernel" | grep -E "REG|Function" | head -40 > $R/scan_res.txt
cuobjdump -res-usage lns_main 2>/dev/null | grep -A1 "partials_narrow" > $R/lns_res.txt
timeout 150 ./scan_main 28 30 > $R/scan.jsonl; echo "scan rc $? after ${SECONDS} s"
timeout 60 ./cub_scan > $R/cub.jsonl; echo "cub rc $? after ${SECONDS} s"
timeout 90 python3 peers.py > $R/peers.jsonl; echo "peers rc $? after ${SECONDS} s"
timeout 100 ./lns_main > $R/lns.jsonl; echo "lns rc $? after ${SECONDS} s"
S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
timeout 90 ncu $S -k regex:"plr_filter|scan_kernel" --csv --page details ./scan_main --ncu 28 --only=golden_u32,unsigned_256x32_lbwtrue_ns0,unsigned_256x64_lbwtrue_ns0 > $R/ncu_scan.csv 2> $R/ncu_scan.err; echo "ncu scan rc $? after ${SECONDS} s"
timeout 60 ncu $S -k regex:"partials_narrow_(base|f2s_pf1)$" --csv --page details ./lns_main --ncu > $R/ncu_lns.csv 2>&1; echo "ncu lns after ${SECONDS} s"
} > $R/log.txt 2>&1
cat $R/log.txt | tail -30
cat $R/lns.jsonl | grep -v check | head -40; grep -c '"same_word": true, "same_partials": true' $R/lns.jsonl; grep check $R/lns.jsonl | grep false | head
cat $R/scan.jsonl $R/cub.jsonl $R/peers.jsonl
