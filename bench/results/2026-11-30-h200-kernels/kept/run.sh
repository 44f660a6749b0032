#!/bin/bash
# The 5G NR decoder after its row update leaves the edge loops at the row's degree: timings,
# the NR self-checks (bit for bit the CPU twin), and ncu of both kernels.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH
S=$PWD/.gpu/sigpu; chmod +x $S
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats"
step() { echo; echo "== $1 ($(date +%T))"; }
step "NR self-checks"
timeout 100 $S --json check --device cuda --filter ldpc/nr --seed 12 > $OUT/nr-checks.json 2>&1; python3 -c "import json,os; d=json.load(open(os.environ['OUT']+'/nr-checks.json')); print(d['passed'],'passed',d['failed'],'failed')"
step "NR bench"
timeout 100 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5,20 --runs 10 > $OUT/nr-bench.txt 2>&1; echo rc=$?; grep -E "BG1|slot|mixed|uniform" $OUT/nr-bench.txt
step "NR ncu, both kernels"
timeout 150 ncu --clock-control none $SEC -k regex:ldpc_nr -s 3 -c 4 $S --device cuda bench ldpc --codes nr:k=8448,n=25344 --schedule layered --decoder oms:0.5 --scale 8 --iterations 5 --runs 2 > $OUT/nr-ncu.txt 2>&1; echo rc=$?
grep -E "^  [a-z_0-9]+ |Duration|Registers Per|Achieved Occ|Issue Slots|Executed Ipc A|Executed Instructions  |highest-utilized" $OUT/nr-ncu.txt | head -40
